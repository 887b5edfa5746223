import type { Command, OptionValues } from '@commander-js/extra-typings';
import { vi } from 'vitest';
import { parseScriptFlags } from '../../lib/local/script-flags';

class ExitCalled extends Error {
  constructor(readonly code: number | undefined) {
    super(`process.exit(${code})`);
  }
}

/** Runs `parseScriptFlags` with its output collected and `process.exit` turned into an exception. */
export function parseCollecting<Opts extends OptionValues>(command: Command<[], Opts>, argv: string[]) {
  const output = { stdout: '', stderr: '' };
  command.configureOutput({
    writeOut: (text) => (output.stdout += text),
    writeErr: (text) => (output.stderr += text),
  });
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new ExitCalled(code === undefined || code === null ? undefined : Number(code));
  });
  try {
    const flags = parseScriptFlags(command, argv);
    return { ...output, flags, exitCode: undefined };
  } catch (error) {
    if (!(error instanceof ExitCalled)) throw error;
    return { ...output, flags: undefined, exitCode: error.code };
  }
}
