import { collectorAddressPath, holdsSocket, isRunning, readCollectorAddress } from '../config/collector-address';
import { isLoopback } from '../config/hosts';
import { listenerServes, listenersOn, processesHolding, socketTablesExist } from '../model/socket-owner';
import type { Check, DoctorContext } from './doctor';

/**
 * Who holds the port, asked of the kernel before the port is (issue 29 item 5): a program of
 * another user listening there while the collector was down answered /health as Beacon, and doctor
 * said ok. The listeners an agent sending to the host may reach (the host, a wildcard; any loopback
 * for a loopback host, as `localhost` may be either) must be this user's; and when the collector
 * address file names a running collector on this port (its pid and start time, as the hook launcher
 * checks them), that process must hold one. Without /proc (macOS) this cannot be asked: nothing is said.
 */
export async function portHolderProblem(ctx: Pick<DoctorContext, 'host' | 'port' | 'log'>, where: string): Promise<Check | undefined> {
  if (!socketTablesExist()) return undefined;
  const listeners = (await listenersOn(ctx.port)).filter((l) => listenerServes(l, ctx.host, isLoopback(ctx.host)));
  const holders = (inodes: number[]) => {
    const pids = processesHolding(inodes);
    return pids.length > 0 ? `pid ${pids.join(', ')}` : 'a process this user cannot see';
  };
  const foreign = listeners.find((l) => l.uid !== process.geteuid?.());
  if (foreign) {
    return {
      id: 'collector', status: 'fail',
      message: `port ${ctx.port}${where} belongs to another user (uid ${foreign.uid}, ${holders([foreign.inode])}), not to your collector: whatever answers there is not yours, and agents sending to it hand it their events (and the otlpToken, when one is set)`,
      fix: 'start your collector (beacon service install) once that program is gone, or run it on another port: beacon service install --port N, then beacon install <agent> again',
    };
  }
  const named = readCollectorAddress(ctx.log);
  if (listeners.length > 0 && named && isRunning(named) && new URL(named.url).port === String(ctx.port) && !holdsSocket(named, listeners.map((l) => l.inode))) {
    return {
      id: 'collector', status: 'fail',
      message: `${collectorAddressPath(ctx.log)} names the collector pid ${named.pid}, but port ${ctx.port} is held by another process (${holders(listeners.map((l) => l.inode))})`,
      fix: 'stop that process, then restart the collector (beacon service install, or beacon collector)',
    };
  }
  return undefined;
}

