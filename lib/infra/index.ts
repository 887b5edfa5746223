export { type SundialAlarmSet, WORKER_ERROR_RATE_PERCENT } from './alarms';
export type { SundialLogLevel, SundialProps } from './props';
export { WORKER_TIMEOUT_MARGIN_SECONDS } from './props';
export { resolveSettings, SundialPropsError, type SundialSettings } from './settings';
export { PROJECT_ROOT, Sundial } from './sundial';
export { SundialStack, type SundialStackProps } from './sundial-stack';
