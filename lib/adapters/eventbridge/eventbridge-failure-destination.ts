import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import {
  type FailureDestination,
  type FailureNotice,
  failureNoticeBody,
} from '../../core/ports/failure-destination';
import { EVENT_SOURCE } from './eventbridge-publisher';

/** The detail-type of a failure notice on a bus; rules match `{ "source": ["sundial"], "detail-type": [...] }`. */
export const FAILURE_NOTICE_DETAIL_TYPE = 'job.failed_for_good';

/** Puts each job that failed for good on an EventBridge bus (the notice's body is the event's detail). */
export class EventBridgeFailureDestination implements FailureDestination {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly eventBusName: string,
  ) {}

  async send(notice: FailureNotice): Promise<void> {
    const output = await this.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.eventBusName,
            Source: EVENT_SOURCE,
            DetailType: FAILURE_NOTICE_DETAIL_TYPE,
            Detail: JSON.stringify(failureNoticeBody(notice)),
            Time: new Date(notice.finishedAt),
          },
        ],
      }),
    );
    const code = output.Entries?.[0]?.ErrorCode;
    if (output.FailedEntryCount)
      throw new Error(`EventBridge rejected the failure notice (${code ?? 'no code'})`);
  }
}
