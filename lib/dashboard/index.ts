export { ALLOWED_ACTIONS } from './guard';
export { API_PATH, DASHBOARD_HEADER } from './protocol';
export { createDashboardRoute, type DashboardRouteOptions } from './route';
export { type DashboardServer, type DashboardServerOptions, startDashboardServer } from './server';
export type { ExtraRoute, InvokeAdmin } from './types';
