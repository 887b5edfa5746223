// Prints the one-line test summary CI ends with, counted from vitest's JSON report.
import { readFileSync } from 'node:fs';

const reportPath = process.argv[2] ?? 'reports/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.error(`no readable vitest JSON report at ${reportPath}: ${error.message}`);
  console.log('tests: 0 passed, 0 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A test file that fails to load has no failed tests of its own: count it as one failure.
const brokenFiles = (report.testResults ?? []).filter(
  (file) =>
    file.status === 'failed' && (file.assertionResults ?? []).every((test) => test.status !== 'failed'),
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 || report.success === false ? 1 : 0);
