import { request } from 'node:http';

export interface StreamedUploadAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Bytes the client had handed to the connection when the answer's headers arrived. */
  sentBeforeAnswer: number;
  /** Whether the client had sent the whole body before the answer came. */
  sentAllBeforeAnswer: boolean;
}

/**
 * POSTs a body of `totalBytes` in chunks, honouring backpressure, and stops sending as soon as an
 * answer arrives. A server that refuses a large body while it streams answers long before the client
 * is done (and, once it stops reading, the client cannot send more); one that buffers it all answers
 * only after the last byte.
 */
export function streamUntilAnswered(
  url: string,
  options: { totalBytes: number; declareLength: boolean; headers?: Record<string, string> },
): Promise<StreamedUploadAnswer> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const headers = {
      'content-type': 'application/json',
      ...(options.declareLength ? { 'content-length': String(options.totalBytes) } : {}),
      ...options.headers,
    };
    const upload = request(url, { method: 'POST', headers }, (response) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => {
        body += text;
      });
      response.on('end', () => {
        upload.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          sentBeforeAnswer,
          sentAllBeforeAnswer: sentBeforeAnswer >= options.totalBytes,
        });
      });
      response.on('error', reject);
    });
    upload.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < options.totalBytes) {
        const part = chunk.subarray(0, Math.min(chunk.length, options.totalBytes - sent));
        sent += part.length;
        if (!upload.write(part)) {
          upload.once('drain', pump);
          return;
        }
      }
      if (!answered) upload.end();
    };
    pump();
  });
}
