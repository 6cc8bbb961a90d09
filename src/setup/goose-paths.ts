import { BEACON_GOOSE_PLUGIN } from '../sources/goose/plugin-name';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Where goose looks for things, resolved as goose resolves them (config/paths.rs). */
export interface GooseLocations {
  /** `$GOOSE_PATH_ROOT` when set to an absolute path (a relative value is ignored, as goose ignores it) */
  pathRoot?: string;
  /** user scope: `~/.agents`, or `$GOOSE_PATH_ROOT/.agents` */
  userAgentsDir: string;
  /** project scope: `<cwd>/.agents` (goose uses its own process cwd) */
  projectAgentsDir: string;
  /** goose's config.yaml */
  configYaml: string;
  /** settings files that enable or disable plugins by name: local, project, user (goose's order of precedence) */
  settingsFiles: string[];
}

/** Beacon's goose plugin: goose reports hook failures by this name (sources/goose/hook-health.ts). */
export const PLUGIN_NAME = BEACON_GOOSE_PLUGIN;

export function gooseLocations(env: NodeJS.ProcessEnv, cwd: string): GooseLocations {
  const home = env.HOME || homedir();
  const root = env.GOOSE_PATH_ROOT && isAbsolute(env.GOOSE_PATH_ROOT) ? env.GOOSE_PATH_ROOT : undefined;
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  const configDir = root ? join(root, 'config') : join(xdg, 'goose');
  // plugins/discovery.rs `user_settings_path`: under the path root, else the home directory's
  // `.config` — not the XDG config dir that holds config.yaml.
  const userSettings = join(root ?? home, '.config', 'goose', 'settings.json');
  return {
    pathRoot: root,
    userAgentsDir: join(root ?? home, '.agents'),
    projectAgentsDir: join(cwd, '.agents'),
    configYaml: join(configDir, 'config.yaml'),
    settingsFiles: [join(cwd, '.config', 'goose', 'settings.local.json'), join(cwd, '.config', 'goose', 'settings.json'), userSettings],
  };
}

/** Where goose's desktop app installs itself (macOS, the Linux packages). */
export function gooseDesktopApps(home: string): string[] {
  return ['/Applications/Goose.app', join(home, 'Applications', 'Goose.app'), '/usr/lib/goose/Goose', '/opt/Goose/Goose', '/usr/bin/Goose'];
}

export function pluginRoot(agentsDir: string): string {
  return join(agentsDir, 'plugins', PLUGIN_NAME);
}

export function hooksFile(agentsDir: string): string {
  return join(pluginRoot(agentsDir), 'hooks', 'hooks.json');
}
