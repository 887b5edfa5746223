// The local platform (DynamoDB Local, SQS emulator, local Lambda endpoint, tick and workers) lands with
// the runtime issue. Until then `npm start` says so instead of pretending to run anything.
console.error(
  'The local platform is not built yet: it arrives with the runtime (tick, worker, admin).\n' +
    'What works today: `npx sundial preview` (try `npx sundial preview "*/15 9-17 * * MON-FRI" --timezone Europe/Berlin`) and `npm test`.',
);
process.exitCode = 1;
