import { describe, expect, it } from 'vitest';
import {
  InvalidDispatchRequestError,
  parseDispatchRequest,
} from '../../../lib/runtime/fan-out/dispatch-request';

describe('parseDispatchRequest', () => {
  it('accepts what the tick sends', () => {
    const request = { owner: 'tick-1', shards: [0, 5, 15], leaseUntil: 1_700_000_000_000 };

    expect(parseDispatchRequest(request)).toEqual(request);
  });

  it.each([
    [{ owner: '', shards: [0], leaseUntil: 1 }, ['owner must be a string of 1 to 200 characters']],
    [
      { owner: 'x'.repeat(201), shards: [0], leaseUntil: 1 },
      ['owner must be a string of 1 to 200 characters'],
    ],
    [
      { owner: 't', shards: [1_000], leaseUntil: 1 },
      ['shards must be a list of distinct whole numbers from 0 to 999, at least one'],
    ],
    [
      { owner: 't', shards: [1, 1], leaseUntil: 1 },
      ['shards must be a list of distinct whole numbers from 0 to 999, at least one'],
    ],
    [
      { owner: 't', shards: [], leaseUntil: 1 },
      ['shards must be a list of distinct whole numbers from 0 to 999, at least one'],
    ],
    [
      { owner: 't', shards: [0.5], leaseUntil: 1 },
      ['shards must be a list of distinct whole numbers from 0 to 999, at least one'],
    ],
    [{ owner: 't', shards: [0], leaseUntil: '1' }, ['leaseUntil must be an epoch time in milliseconds']],
  ])('refuses %j, naming the field', (event, problems) => {
    expect(() => parseDispatchRequest(event)).toThrow(InvalidDispatchRequestError);
    try {
      parseDispatchRequest(event);
    } catch (error) {
      expect((error as InvalidDispatchRequestError).problems).toEqual(problems);
    }
  });

  it('names every wrong field of an event that is no request at all', () => {
    expect(() => parseDispatchRequest('go')).toThrow(
      'invalid dispatch request: owner must be a string of 1 to 200 characters; shards must be a list of distinct whole numbers from 0 to 999, at least one; leaseUntil must be an epoch time in milliseconds',
    );
  });
});
