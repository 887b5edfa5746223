/**
 * One way to validate input and word its problems: zod schemas parsed by {@link parseWithIssues},
 * paths written by {@link formatPath}, problems thrown as one `ValidationError` (lib/core/errors.ts).
 */
export { collectIssues } from './collect';
export { formatPath, joinPath, type PathSegment } from './path';
export { parseWithIssues } from './zod-issues';
