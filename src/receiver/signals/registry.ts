import { logs } from './logs';
import { metrics } from './metrics';
import type { OtlpSignal } from './signal';
import { traces } from './traces';

/** The OTLP signals the receiver serves, each a module of its own (goose exports all three with one endpoint setting). */
export const SIGNALS: readonly OtlpSignal[] = [traces as OtlpSignal, metrics as OtlpSignal, logs as OtlpSignal];
