import { aHit, unknownHitVisitor } from '@funnel/reporting-domain';
import { webhookDeliveryId, webhookPayload } from './webhook-payload';

const hit = aHit({
  hitId: 'HIT000000009',
  idNode: 'NODE00000002',
  nodeType: 'webhook',
  idOfferSource: '',
  action: 2,
  previousHitId: 'HIT000000008',
  isEntrance: false,
  cost: '0.25',
  trackingFields: { campaign: 'spring' },
  visitor: { ...unknownHitVisitor(), deviceType: 'mobile', browserLanguage: 'en-US', userAgent: 'Mozilla/5.0' },
  visitorTags: ['TAG000000001'],
});

describe('webhook_outbound_payload_v1', () => {
  it('builds a node_execution body: the event, the webhook, then the funnel, source, visitor, hit and tracking fields in snake_case', () => {
    const deliveryId = webhookDeliveryId('HIT000000009', 'WHCONFIG0001');
    expect(deliveryId).toBe('HIT000000009.WHCONFIG0001');
    const body = webhookPayload(
      { deliveryId, eventId: 'HIT000000009', trigger: 'node_execution', idWebhookConfig: 'WHCONFIG0001', idNode: 'NODE00000002', time: hit.time },
      hit,
    );
    expect(body).toEqual({
      schema_version: 'webhook_outbound_payload_v1',
      type: 'node_execution',
      event_type: 'node_execution',
      event_id: 'HIT000000009',
      request_id: 'HIT000000009.WHCONFIG0001',
      timestamp: '2026-01-10T12:00:00.000Z',
      webhook: { id: 'WHCONFIG0001', node_id: 'NODE00000002' },
      funnel: { id: 'FUNNEL000001', funnel_group_id: 'FGROUP000001', node_id: 'NODE00000002', node_type: 'webhook' },
      traffic_source: { id: 'TSOURCE00001' },
      visitor: expect.objectContaining({
        id: 'VISITOR00001',
        ip: '203.0.113.7',
        country_code: 'US',
        device_type: 'mobile',
        browser_language: 'en-US',
        user_agent: 'Mozilla/5.0',
        os_version: '',
        tags: ['TAG000000001'],
      }),
      hit: {
        id: 'HIT000000009',
        time: '2026-01-10T12:00:00.000Z',
        node_id: 'NODE00000002',
        page_id: 'PAGE00000001',
        offer_source_id: '',
        is_entrance: false,
        cost: '0.25',
        action: 2,
        previous_hit_id: 'HIT000000008',
      },
      tracking_fields: { campaign: 'spring' },
    });
    expect(Object.keys(body['visitor'] as object).every((key) => /^[a-z_]+$/.test(key))).toBe(true);
    expect(body).not.toHaveProperty('conversion');
    expect(body).not.toHaveProperty('custom_event');
  });

  it('adds the conversion of a conversion_triggered event, stamped at the conversion, with no node for an allFunnels config', () => {
    const body = webhookPayload(
      {
        deliveryId: 'JOB1:0.WHCONFIG0002',
        eventId: 'JOB1:0',
        trigger: 'conversion_triggered',
        idWebhookConfig: 'WHCONFIG0002',
        idNode: null,
        time: '2026-01-11T08:00:00.000Z',
      },
      hit,
      { conversion: { transactionId: 'T-1', payout: '2.5', time: '2026-01-11T08:00:00.000Z' } },
    );
    expect(body).toMatchObject({
      type: 'conversion_triggered',
      event_id: 'JOB1:0',
      timestamp: '2026-01-11T08:00:00.000Z',
      webhook: { id: 'WHCONFIG0002', node_id: null },
      hit: { id: 'HIT000000009' },
      conversion: { transaction_id: 'T-1', payout: '2.5', time: '2026-01-11T08:00:00.000Z' },
    });
    expect(body).not.toHaveProperty('custom_event');
  });

  it('adds the custom event of a custom_event_triggered event', () => {
    const body = webhookPayload(
      { deliveryId: 'JOB2:1.WHCONFIG0002', eventId: 'JOB2:1', trigger: 'custom_event_triggered', idWebhookConfig: 'WHCONFIG0002', idNode: null, time: 't' },
      aHit({ visitor: undefined as never, visitorTags: undefined as never, trackingFields: undefined as never }),
      { customEvent: { eventNumber: 4, count: 3, time: '2026-01-11T09:00:00.000Z' } },
    );
    expect(body).toMatchObject({
      event_type: 'custom_event_triggered',
      custom_event: { event_number: 4, count: 3, time: '2026-01-11T09:00:00.000Z' },
      tracking_fields: {},
      visitor: { id: 'VISITOR00001', tags: [] },
    });
    expect(body).not.toHaveProperty('conversion');
  });
});
