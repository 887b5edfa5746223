export type { PlannedFire } from './fire-choices';
export { jitteredRunAt } from './jitter';
export { latestFireTime } from './latest-fire';
export type { FirePolicies } from './policies';
export { type PhaseGroup, planSendPhases, type SendPhaseOptions } from './send-phases';
