export { jitteredRunAt } from './jitter';
export { latestFireTime } from './latest-fire';
export { capAtMaxRuns } from './max-runs';
export { type FirePlan, type PlanInput, type PlannedFire, planFires } from './plan-fires';
export { DEFAULT_PLAN_LIMITS, dueWindowMs, type FirePolicies, type PlanLimits } from './policies';
export { type PhaseGroup, planSendPhases, type SendPhaseOptions } from './send-phases';
