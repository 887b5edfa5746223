export { ALLOWED_ACTIONS, DASHBOARD_HEADER } from './guard';
export { API_PATH, createDashboardRoute, type DashboardRouteOptions } from './route';
export { type DashboardServer, type DashboardServerOptions, startDashboardServer } from './server';
export type { ExtraRoute, InvokeAdmin } from './types';
