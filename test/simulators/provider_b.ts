// A provider_b (Midtrans-style) simulator: Basic auth with the server key; Snap transactions
// (token + redirect_url), Core API charges (qris, bank_transfer, echannel, cstore), GET status,
// refunds; HTTP notifications signed with signature_key = SHA-512(order_id + status_code +
// gross_amount + server_key), gross_amount always with two decimals ("100000.00"), sent to
// X-Override-Notification when the create call gave one, else to the dashboard URL. Saved cards:
// a Snap card paid with `save_card` leaves a `saved_token_id`, charged later by `POST /v2/charge`
// `payment_type: credit_card` (`credit_card.token_id`); the card's last four pick the scenario.
import { createHash } from 'node:crypto';
import {
  basicCredentials,
  hex,
  qrisString,
  Simulator,
  uuid,
  type Delivery,
  type DeliveryOptions,
  type SimRequest,
  type SimResponse,
} from './common.ts';
import {
  actionPage,
  ChargeCounter,
  defaultOffSession,
  deliveryOf,
  digitsOf,
  formOf,
  outcomeOf,
  redirectTo,
  scenarioOf,
  scenarios,
  shouldDrop,
  tokenizePage,
  type FailReason,
  type Outcome,
  type Scenario,
  type TokenStatus,
} from './saved.ts';

export interface ProviderBSimOptions {
  serverKey: string;
  merchantId?: string;
  /** The dashboard's Payment Notification URL. */
  notificationUrl?: string;
  /** The dashboard's Pay Account Notification URL (GoPay linking); default the payment one. */
  payAccountNotificationUrl?: string;
}

/** A linked GoPay account (`/v2/pay/account`). */
interface Account {
  account_id: string;
  account_status: 'PENDING' | 'ENABLED' | 'EXPIRED' | 'DISABLED';
  phone_number: string;
  redirect_url?: string;
  payment_option_token: string;
  scenario: Scenario;
}

/** A one-click card token a `save_card` payment left (`saved_token_id`). */
interface SavedCard {
  token: string;
  last4: string;
  scenario: Scenario;
  status: 'active' | 'expired' | 'revoked';
}

interface Tx {
  order_id: string;
  gross_amount: string;
  currency: string;
  /** null until the buyer picks a method on the Snap page: the status API does not know it yet. */
  payment_type: string | null;
  transaction_status: string;
  fraud_status?: string;
  transaction_id: string;
  transaction_time: string;
  settlement_time?: string;
  expiry_time?: string;
  notificationUrl?: string;
  extra: Record<string, unknown>;
  refunds: {
    refund_chargeback_id: number;
    refund_amount: string;
    created_at: string;
    reason: string;
    refund_key: string;
  }[];
  snapToken?: string;
  /** Snap `credit_card.save_card` with a `user_id`: a paid card leaves a one-click `saved_token_id`. */
  saveCard?: boolean;
  /** Snap `callbacks.finish`: where the card form sends the buyer back. */
  finishUrl?: string;
}

const STATUS_CODES: Record<string, string> = {
  capture: '200',
  settlement: '200',
  pending: '201',
  deny: '202',
  cancel: '200',
  expire: '407',
  refund: '200',
  partial_refund: '200',
};

/** The channel response code and message of each failure reason (card-network codes where one exists). */
function failureB(reason: FailReason, card = false): [string, string] {
  if (card && reason === 'expired') return ['54', 'Expired card'];
  switch (reason) {
    case 'declined':
      return ['05', 'Transaction declined'];
    case 'insufficient_funds':
      return ['51', 'Insufficient balance'];
    case 'limit_exceeded':
      return ['61', 'Transaction limit exceeded'];
    case 'account_blocked':
      return ['62', 'Account is blocked'];
    case 'expired':
      return ['EXPIRED', 'Account link has expired'];
    case 'revoked':
      return ['DISABLED', 'Account is unlinked'];
  }
}

/** Jakarta wall-clock time, the provider's format: "2026-01-31 18:00:00". */
const wib = (d: Date) => new Date(d.getTime() + 7 * 3600e3).toISOString().slice(0, 19).replace('T', ' ');
const money = (n: number) => `${n}.00`;

export class ProviderBSim extends Simulator {
  notificationUrl?: string;
  readonly txs = new Map<string, Tx>();
  private refundSeq = 1000;
  payAccountNotificationUrl?: string;
  /** Linked GoPay accounts by account id. */
  readonly accounts = new Map<string, Account>();
  /** Off-session charges actually made: per order id (the provider's idempotency) and per our reference. */
  readonly charges = new ChargeCounter();
  readonly offSession = defaultOffSession();
  /** Saved card tokens this simulator issued, by `saved_token_id`. */
  readonly savedCards = new Map<string, SavedCard>();

  constructor(private readonly opts: ProviderBSimOptions) {
    super();
    this.notificationUrl = opts.notificationUrl;
    this.payAccountNotificationUrl = opts.payAccountNotificationUrl;
    this.route('POST', /^\/v2\/pay\/account$/, (r) => this.authed(r, 'core', () => this.createAccount(r.json)));
    this.route('GET', /^\/v2\/pay\/account\/([^/]+)$/, (r) =>
      this.authed(r, 'core', () => this.getAccount(r.params[0])),
    );
    this.route('POST', /^\/v2\/pay\/account\/([^/]+)\/unbind$/, (r) =>
      this.authed(r, 'core', () => this.unbind(r.params[0])),
    );
    this.route('GET', /^\/snap\/v4\/redirection\/([^/]+)$/, (r) => {
      const tx = this.bySnapToken(r.params[0]);
      return tx && tx.transaction_status === 'pending'
        ? { status: 200, html: tokenizePage({ provider: 'provider_b', ref: r.params[0], field: 'number' }) }
        : { status: 404, html: 'not found' };
    });
    this.route('GET', /^\/sim\/tokenize\/([^/]+)$/, (r) => {
      const a = this.accounts.get(r.params[0]);
      return a && a.account_status === 'PENDING'
        ? {
            status: 200,
            html: tokenizePage({
              provider: 'provider_b',
              ref: a.account_id,
              field: 'phone',
              value: `0${a.phone_number}`,
            }),
          }
        : { status: 404, html: 'not found' };
    });
    this.route('POST', /^\/sim\/tokenize\/([^/]+)$/, (r) =>
      this.bySnapToken(r.params[0])
        ? this.cardForm(r.params[0], formOf(r.text).get('number') ?? '')
        : this.link(r.params[0], formOf(r.text).get('phone') ?? ''),
    );
    this.route('POST', /^\/sim\/tokenize\/([^/]+)\/authenticate$/, (r) =>
      this.linkAuthenticated(r.params[0], formOf(r.text).get('outcome') === 'success'),
    );
    this.route('GET', /^\/sim\/action\/([^/]+)$/, (r) =>
      this.txs.has(r.params[0])
        ? { status: 200, html: actionPage(`/sim/action/${r.params[0]}`) }
        : { status: 404, html: 'not found' },
    );
    this.route('POST', /^\/sim\/action\/([^/]+)$/, async (r) => {
      await this.completeAction(r.params[0], formOf(r.text).get('outcome') === 'success');
      return { status: 200, html: '<p>Done</p>' };
    });
    this.route('POST', /^\/snap\/v1\/transactions$/, (r) => this.authed(r, 'snap', () => this.snap(r)));
    this.route('POST', /^\/v2\/charge$/, (r) => this.authed(r, 'core', () => this.charge(r)));
    this.route('GET', /^\/v2\/([^/]+)\/status$/, (r) => this.authed(r, 'core', () => this.status(r.params[0])));
    this.route('POST', /^\/v2\/([^/]+)\/refund$/, (r) =>
      this.authed(r, 'core', () => this.refund(r.params[0], r.json)),
    );
    this.route('POST', /^\/v2\/([^/]+)\/expire$/, (r) => this.authed(r, 'core', () => this.expireNow(r.params[0])));
  }

  /** Core API expire: a pending transaction is expired at once (status_code 407); anything else is 412. */
  readonly expired = new Set<string>();
  private expireNow(orderId: string): SimResponse {
    const tx = this.txs.get(orderId);
    if (!tx) return { status: 404, body: { status_code: '404', status_message: "Transaction doesn't exist." } };
    if (tx.transaction_status !== 'pending')
      return {
        status: 200,
        body: { status_code: '412', status_message: 'Merchant cannot modify the status of the transaction' },
      };
    tx.transaction_status = 'expire';
    this.expired.add(orderId);
    return { status: 200, body: { ...this.view(tx), status_message: 'Success, transaction has expired' } };
  }

  private authed(r: SimRequest, api: 'snap' | 'core', next: () => SimResponse): SimResponse {
    const c = basicCredentials(r.headers.authorization);
    if (c && c.user === this.opts.serverKey) return next();
    return api === 'snap'
      ? {
          status: 401,
          body: {
            error_messages: ['Access denied due to unauthorized transaction, please check client or server key'],
          },
        }
      : { status: 401, body: { status_code: '401', status_message: 'Unknown Merchant server_key/id', id: uuid() } };
  }

  private validate(b: any): string | null {
    const d = b?.transaction_details;
    if (!d || typeof d.order_id !== 'string' || !/^[A-Za-z0-9_~.-]{1,50}$/.test(d.order_id))
      return 'transaction_details.order_id is invalid';
    if (!Number.isInteger(d.gross_amount) || d.gross_amount < 1)
      return 'transaction_details.gross_amount must be a positive integer';
    return null;
  }

  private newTx(b: any, r: SimRequest, payment_type: string | null, expiryMinutes: number | undefined): Tx {
    const now = new Date();
    const tx: Tx = {
      order_id: b.transaction_details.order_id,
      gross_amount: money(b.transaction_details.gross_amount),
      currency: 'IDR',
      payment_type,
      transaction_status: 'pending',
      transaction_id: uuid(),
      transaction_time: wib(now),
      expiry_time: wib(new Date(now.getTime() + (expiryMinutes ?? 24 * 60) * 60e3)),
      notificationUrl:
        typeof r.headers['x-override-notification'] === 'string' ? r.headers['x-override-notification'] : undefined,
      extra: {},
      refunds: [],
    };
    this.txs.set(tx.order_id, tx);
    return tx;
  }

  private snap(r: SimRequest): SimResponse {
    const problem = this.validate(r.json);
    if (problem) return { status: 400, body: { error_messages: [problem] } };
    if (this.txs.has(r.json.transaction_details.order_id))
      return { status: 400, body: { error_messages: ['transaction_details.order_id has already been taken'] } };
    const tx = this.newTx(r.json, r, null, r.json.expiry?.duration);
    tx.extra.enabled_payments = r.json.enabled_payments;
    tx.saveCard = r.json.credit_card?.save_card === true && typeof r.json.user_id === 'string';
    tx.finishUrl = typeof r.json.callbacks?.finish === 'string' ? r.json.callbacks.finish : undefined;
    tx.snapToken = uuid();
    return {
      status: 201,
      body: { token: tx.snapToken, redirect_url: `${this.url}/snap/v4/redirection/${tx.snapToken}` },
    };
  }

  private charge(r: SimRequest): SimResponse {
    const b = r.json;
    const problem = this.validate(b);
    if (problem)
      return {
        status: 400,
        body: {
          status_code: '400',
          status_message: 'One or more parameters in the payload is invalid.',
          validation_messages: [problem],
        },
      };
    if (this.txs.has(b.transaction_details.order_id)) {
      return {
        status: 406,
        body: {
          status_code: '406',
          status_message:
            'The request could not be completed due to a conflict with the current state of the target resource, please try again',
        },
      };
    }
    const type = b.payment_type;
    if (type === 'gopay' && b.gopay?.account_id) return this.gopayCharge(b, r);
    if (type === 'credit_card') return this.cardCharge(b, r);
    if (!['qris', 'bank_transfer', 'echannel', 'cstore'].includes(type))
      return {
        status: 400,
        body: { status_code: '400', status_message: `payment_type ${type} is not supported here` },
      };
    const tx = this.newTx(b, r, type, b.custom_expiry?.expiry_duration);
    if (type === 'qris') {
      Object.assign(tx.extra, {
        acquirer: b.qris?.acquirer ?? 'gopay',
        qr_string: qrisString(b.transaction_details.gross_amount, tx.transaction_id),
        actions: [{ name: 'generate-qr-code', method: 'GET', url: `${this.url}/v2/qris/${tx.transaction_id}/qr-code` }],
      });
    } else if (type === 'bank_transfer') {
      const bank = b.bank_transfer?.bank;
      const number = String(Math.floor(Math.random() * 1e11)).padStart(11, '0');
      Object.assign(
        tx.extra,
        bank === 'permata' ? { permata_va_number: number } : { va_numbers: [{ bank, va_number: number }] },
      );
    } else if (type === 'echannel') {
      Object.assign(tx.extra, { bill_key: String(Math.floor(Math.random() * 1e11)), biller_code: '70012' });
    } else {
      Object.assign(tx.extra, {
        store: b.cstore?.store,
        payment_code: String(Math.floor(Math.random() * 1e12)).padStart(12, '0'),
      });
    }
    return { status: 200, body: { ...this.view(tx), status_message: `Success, ${type} transaction is created` } };
  }

  private view(tx: Tx) {
    return {
      status_code: STATUS_CODES[tx.transaction_status],
      transaction_id: tx.transaction_id,
      order_id: tx.order_id,
      merchant_id: this.opts.merchantId ?? 'G000000000',
      gross_amount: tx.gross_amount,
      currency: tx.currency,
      payment_type: tx.payment_type,
      transaction_time: tx.transaction_time,
      transaction_status: tx.transaction_status,
      ...(tx.fraud_status ? { fraud_status: tx.fraud_status } : {}),
      ...(tx.settlement_time ? { settlement_time: tx.settlement_time } : {}),
      expiry_time: tx.expiry_time,
      ...tx.extra,
      ...(tx.refunds.length
        ? {
            refund_amount: money(tx.refunds.reduce((s, x) => s + Number.parseInt(x.refund_amount, 10), 0)),
            refunds: tx.refunds,
          }
        : {}),
    };
  }

  private status(orderId: string): SimResponse {
    const tx = this.txs.get(orderId);
    if (!tx || !tx.payment_type)
      return { status: 404, body: { status_code: '404', status_message: "Transaction doesn't exist.", id: uuid() } };
    return { status: 200, body: { ...this.view(tx), status_message: 'Success, transaction is found' } };
  }

  private refund(orderId: string, b: any): SimResponse {
    const tx = this.txs.get(orderId);
    if (!tx || !tx.payment_type)
      return { status: 404, body: { status_code: '404', status_message: "Transaction doesn't exist." } };
    const existing = tx.refunds.find((x) => x.refund_key === b?.refund_key);
    const paid = Number.parseInt(tx.gross_amount, 10);
    const refunded = tx.refunds.reduce((s, x) => s + Number.parseInt(x.refund_amount, 10), 0);
    if (!existing) {
      if (!['settlement', 'capture', 'partial_refund'].includes(tx.transaction_status)) {
        return {
          status: 412,
          body: { status_code: '412', status_message: 'Merchant cannot modify the status of the transaction' },
        };
      }
      const amount = b?.amount ?? paid - refunded;
      if (!Number.isInteger(amount) || amount < 1 || amount > paid - refunded)
        return { status: 400, body: { status_code: '413', status_message: 'The refund amount is invalid' } };
      tx.refunds.push({
        refund_chargeback_id: this.refundSeq++,
        refund_amount: money(amount),
        created_at: wib(new Date()),
        reason: b?.reason ?? '',
        refund_key: b?.refund_key ?? uuid(),
      });
      tx.transaction_status = refunded + amount === paid ? 'refund' : 'partial_refund';
      void this.notify(tx, {});
    }
    const last = existing ?? tx.refunds[tx.refunds.length - 1];
    return {
      status: 200,
      body: {
        status_code: '200',
        status_message: 'Success, refund request is approved',
        transaction_id: tx.transaction_id,
        order_id: tx.order_id,
        gross_amount: tx.gross_amount,
        currency: tx.currency,
        payment_type: tx.payment_type,
        transaction_time: tx.transaction_time,
        transaction_status: tx.transaction_status,
        refund_chargeback_id: last.refund_chargeback_id,
        refund_amount: last.refund_amount,
        refund_key: last.refund_key,
      },
    };
  }

  // ---- GoPay tokenization: pay accounts ----

  private createAccount(b: any): SimResponse {
    const p = b?.gopay_partner;
    if (b?.payment_type !== 'gopay' || !p)
      return {
        status: 400,
        body: { status_code: '400', status_message: 'payment_type gopay and gopay_partner are required' },
      };
    if (typeof p.phone_number !== 'string' || !/^[1-9]\d{8,11}$/.test(p.phone_number) || p.country_code !== '62')
      return { status: 400, body: { status_code: '400', status_message: 'gopay_partner.phone_number is invalid' } };
    const a: Account = {
      account_id: uuid(),
      account_status: 'PENDING',
      phone_number: p.phone_number,
      redirect_url: p.redirect_url,
      payment_option_token: Buffer.from(JSON.stringify({ type: 'GOPAY_WALLET', id: hex(8) })).toString('base64'),
      scenario: scenarioOf(p.phone_number),
    };
    this.accounts.set(a.account_id, a);
    const link = `${this.url}/sim/tokenize/${a.account_id}`;
    return {
      status: 201,
      body: {
        status_code: '201',
        payment_type: 'gopay',
        account_id: a.account_id,
        account_status: a.account_status,
        actions: [
          { name: 'activation-deeplink', method: 'GET', url: link },
          { name: 'activation-link-url', method: 'GET', url: link },
          { name: 'activation-link-app', method: 'GET', url: link },
        ],
        metadata: { reference_id: hex(8) },
      },
    };
  }

  private accountView(a: Account) {
    return {
      status_code: '200',
      payment_type: 'gopay',
      account_id: a.account_id,
      account_status: a.account_status,
      metadata:
        a.account_status === 'ENABLED'
          ? {
              payment_options: [
                {
                  name: 'GOPAY_WALLET',
                  active: true,
                  balance: { value: '1000000.00', currency: 'IDR' },
                  metadata: {},
                  token: a.payment_option_token,
                },
                {
                  name: 'PAY_LATER',
                  active: false,
                  balance: { value: '0.00', currency: 'IDR' },
                  metadata: {},
                  token: hex(8),
                },
              ],
            }
          : {},
    };
  }

  private getAccount(id: string): SimResponse {
    const a = this.accounts.get(id);
    return a
      ? { status: 200, body: this.accountView(a) }
      : { status: 404, body: { status_code: '404', status_message: "Account doesn't exist." } };
  }

  private unbind(id: string): SimResponse {
    const a = this.accounts.get(id);
    if (!a) return { status: 404, body: { status_code: '404', status_message: "Account doesn't exist." } };
    a.account_status = 'DISABLED';
    return {
      status: 200,
      body: {
        status_code: '204',
        payment_type: 'gopay',
        account_id: a.account_id,
        account_status: 'DISABLED',
        channel_response_code: '0',
        channel_response_message: 'Process service request successfully.',
      },
    };
  }

  /** The customer confirms linking on the GoPay page with the phone number typed there. */
  private link(id: string, typed: string): SimResponse {
    const a = this.accounts.get(id);
    if (!a || a.account_status !== 'PENDING') return { status: 404, html: 'not found' };
    const digits = digitsOf(typed);
    if (digits.length < 9) return { status: 400, html: 'enter the phone number' };
    a.scenario = scenarioOf(digits);
    const back = `${a.redirect_url ?? this.url}${(a.redirect_url ?? '').includes('?') ? '&' : '?'}account_id=${a.account_id}`;
    if (scenarios[a.scenario].setupFails) {
      void this.moveAccount(a, 'DISABLED');
      return redirectTo(back);
    }
    if (a.scenario === 'requires_action') return { status: 200, html: actionPage(`/sim/tokenize/${id}/authenticate`) };
    void this.moveAccount(a, 'ENABLED');
    return redirectTo(back);
  }

  private linkAuthenticated(id: string, ok: boolean): SimResponse {
    const a = this.accounts.get(id);
    if (!a || a.account_status !== 'PENDING') return { status: 404, html: 'not found' };
    void this.moveAccount(a, ok ? 'ENABLED' : 'DISABLED');
    return redirectTo(`${a.redirect_url ?? this.url}?account_id=${a.account_id}`);
  }

  /** The pay-account notification, signed like transaction ones with account_id and account_status. */
  accountNotificationFor(a: Account, serverKey = this.opts.serverKey) {
    const statusCode = a.account_status === 'DISABLED' ? '204' : '200';
    return {
      account_id: a.account_id,
      merchant_id: this.opts.merchantId ?? 'G000000000',
      payment_type: 'gopay',
      status_code: statusCode,
      account_status: a.account_status,
      signature_key: createHash('sha512')
        .update(a.account_id + statusCode + a.account_status + serverKey)
        .digest('hex'),
    };
  }

  private moveAccount(a: Account, status: Account['account_status'], opts: DeliveryOptions = {}): Promise<Delivery[]> {
    a.account_status = status;
    const o = { ...deliveryOf(this.offSession), ...opts };
    const body = this.accountNotificationFor(a, o.forge ? `forged-${hex(8)}` : this.opts.serverKey);
    return this.deliver(this.payAccountNotificationUrl ?? this.notificationUrl, () => ({}), JSON.stringify(body), o);
  }

  /** An account already linked (tests and benches that skip the linking page); answers the adapter's token. */
  seedToken(opts: { digits: string }): string {
    const a: Account = {
      account_id: uuid(),
      account_status: 'ENABLED',
      phone_number: `812${opts.digits.slice(-8).padStart(8, '0')}`,
      payment_option_token: Buffer.from(JSON.stringify({ type: 'GOPAY_WALLET', id: hex(8) })).toString('base64'),
      scenario: scenarioOf(opts.digits),
    };
    this.accounts.set(a.account_id, a);
    return JSON.stringify({ account_id: a.account_id, payment_option_token: a.payment_option_token });
  }

  private account(ref: string): Account {
    const id = ref.startsWith('{') ? JSON.parse(ref).account_id : ref;
    const a = this.accounts.get(id);
    if (!a) throw new Error(`simulator: no pay account ${ref}`);
    return a;
  }

  /**
   * The customer unlinks in the GoPay app (DISABLED), with the unbind notification. By account id or
   * token. A saved card token is deleted at the provider: Midtrans sends no notification for cards.
   */
  revokeToken(ref: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const card = this.savedCards.get(ref);
    if (card) return ((card.status = 'revoked'), Promise.resolve([]));
    return this.moveAccount(this.account(ref), 'DISABLED', opts);
  }

  /** The link (or a saved card token, silently) runs out (EXPIRED), with its notification. */
  expireToken(ref: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const card = this.savedCards.get(ref);
    if (card) return ((card.status = 'expired'), Promise.resolve([]));
    return this.moveAccount(this.account(ref), 'EXPIRED', opts);
  }

  // ---- off-session GoPay charges ----

  private gopayCharge(b: any, r: SimRequest): SimResponse {
    const a = this.accounts.get(b.gopay.account_id);
    if (!a || a.payment_option_token !== b.gopay.payment_option_token)
      return {
        status: 400,
        body: { status_code: '400', status_message: 'gopay.account_id or payment_option_token is invalid' },
      };
    const status: TokenStatus =
      a.account_status === 'ENABLED' ? 'active' : a.account_status === 'EXPIRED' ? 'expired' : 'revoked';
    const outcome = outcomeOf(a.scenario, b.transaction_details.gross_amount, status);
    if (outcome.kind === 'failed' && a.account_status === 'ENABLED') {
      if (outcome.reason === 'expired') a.account_status = 'EXPIRED';
      if (outcome.reason === 'revoked') a.account_status = 'DISABLED';
    }
    return this.offSessionTx(b, r, 'gopay', outcome);
  }

  /**
   * `payment_type: credit_card` with `credit_card.token_id` (Midtrans one-click): a token this simulator
   * never issued, or one revoked, answers 411 with no transaction (Midtrans "Token id is missing, invalid,
   * or timed out"); otherwise the card's scenario and the amount magic decide.
   */
  private cardCharge(b: any, r: SimRequest): SimResponse {
    const id = b.credit_card?.token_id;
    if (typeof id !== 'string' || !id)
      return { status: 400, body: { status_code: '400', status_message: 'credit_card.token_id is required' } };
    const invalid = {
      status: 411,
      body: { status_code: '411', status_message: 'Token id is missing, invalid, or timed out', id: uuid() },
    };
    const card = this.savedCards.get(id);
    if (!card || card.status === 'revoked') return invalid;
    const outcome = outcomeOf(card.scenario, b.transaction_details.gross_amount, card.status);
    // The `revoked` scenario: the token was deleted at the provider, so the charge meets no token.
    if (outcome.kind === 'failed' && outcome.reason === 'revoked') return ((card.status = 'revoked'), invalid);
    if (outcome.kind === 'failed' && outcome.reason === 'expired') card.status = 'expired';
    return this.offSessionTx(b, r, 'credit_card', outcome);
  }

  /** One merchant-initiated transaction: counted, answered per outcome, notified like any other charge. */
  private offSessionTx(b: any, r: SimRequest, type: 'gopay' | 'credit_card', outcome: Outcome): SimResponse {
    const reference = typeof b.custom_field1 === 'string' ? b.custom_field1 : b.transaction_details.order_id;
    this.charges.record(b.transaction_details.order_id, reference);
    const card = type === 'credit_card';
    const tx = this.newTx(b, r, type, undefined);
    tx.extra.custom_field1 = b.custom_field1;
    if (card) {
      const saved = this.savedCards.get(b.credit_card.token_id)!;
      Object.assign(tx.extra, { masked_card: `400000-${saved.last4}`, card_type: 'credit', bank: 'bni' });
    }
    // A card charge ends in `capture` (settled later by Midtrans), a GoPay one in `settlement`.
    const paid = () =>
      Object.assign(
        tx,
        card
          ? { transaction_status: 'capture', fraud_status: 'accept' }
          : { transaction_status: 'settlement', fraud_status: 'accept', settlement_time: wib(new Date()) },
      );
    const o = deliveryOf(this.offSession);
    if (outcome.kind === 'succeeded') {
      paid();
      void this.notify(tx, o);
    } else if (outcome.kind === 'failed') {
      const [code, message] = failureB(outcome.reason, card);
      Object.assign(tx, { transaction_status: 'deny', fraud_status: 'accept' });
      Object.assign(tx.extra, { channel_response_code: code, channel_response_message: message });
      void this.notify(tx, o);
    } else if (outcome.kind === 'requires_action') {
      const url = `${this.url}/sim/action/${tx.order_id}`;
      if (card) tx.extra.redirect_url = url;
      else tx.extra.actions = [{ name: 'verification-link-url', method: 'GET', url }];
    } else {
      this.later(this.offSession.delayMs, () => {
        if (tx.transaction_status !== 'pending') return;
        paid();
        return this.notify(tx, o);
      });
    }
    const out: SimResponse = {
      status: 200,
      body: {
        ...this.view(tx),
        status_message: card ? 'Success, Credit Card transaction is successful' : 'GoPay transaction is created',
      },
    };
    return shouldDrop(this.offSession) ? { ...out, drop: true } : out;
  }

  /** The customer verifies (PIN) a charge waiting on its verification link, or gives up (expire). By order id or our reference. */
  completeAction(ref: string, ok: boolean, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const tx = this.txs.get(ref) ?? [...this.txs.values()].find((t) => t.extra.custom_field1 === ref);
    if (!tx) throw new Error(`simulator: no order ${ref}`);
    if (tx.transaction_status !== 'pending') return Promise.resolve([]);
    delete tx.extra.actions;
    delete tx.extra.redirect_url;
    if (ok && tx.payment_type === 'credit_card')
      Object.assign(tx, { transaction_status: 'capture', fraud_status: 'accept' });
    else if (ok)
      Object.assign(tx, { transaction_status: 'settlement', fraud_status: 'accept', settlement_time: wib(new Date()) });
    else tx.transaction_status = 'expire';
    return this.notify(tx, { ...deliveryOf(this.offSession), ...opts });
  }

  // ---- controls ----

  private tx(orderId: string): Tx {
    const tx = this.txs.get(orderId);
    if (!tx) throw new Error(`simulator: no order ${orderId}`);
    return tx;
  }

  /**
   * The buyer pays. Cards end in `capture` (with `fraud`, default accept), the rest in `settlement`.
   * `cardNumber` is the number typed on the Snap card form (default 4811 1111 1111 1114).
   */
  pay(
    orderId: string,
    opts: DeliveryOptions & { fraud?: 'accept' | 'challenge' | 'deny'; paymentType?: string; cardNumber?: string } = {},
  ): Promise<Delivery[]> {
    const tx = this.tx(orderId);
    const enabled = (tx.extra.enabled_payments as string[] | undefined) ?? [];
    tx.payment_type ??= opts.paymentType ?? (enabled.includes('credit_card') ? 'credit_card' : (enabled[0] ?? 'gopay'));
    if (tx.payment_type === 'credit_card') {
      tx.transaction_status = 'capture';
      tx.fraud_status = opts.fraud ?? 'accept';
      const digits = digitsOf(opts.cardNumber ?? '4811111111111114');
      tx.extra.masked_card ??= `${digits.slice(0, 8)}-${digits.slice(-4)}`;
      tx.extra.card_type ??= 'credit';
      if (tx.saveCard && tx.fraud_status === 'accept' && !tx.extra.saved_token_id) {
        const until = new Date();
        until.setUTCFullYear(until.getUTCFullYear() + 3);
        tx.extra.saved_token_id = this.issueCard(digits);
        tx.extra.saved_token_id_expired_at = wib(until);
      }
    } else {
      tx.transaction_status = 'settlement';
      tx.fraud_status = 'accept';
      tx.settlement_time = wib(new Date());
    }
    return this.notify(tx, opts);
  }

  /** A `saved_token_id` for a card (first six, random, last four, as Midtrans spells them), tracked. */
  private issueCard(digits: string): string {
    const token = `${digits.slice(0, 6)}${hex(4)}-${digits.slice(-4)}-${uuid()}`;
    this.savedCards.set(token, { token, last4: digits.slice(-4), scenario: scenarioOf(digits), status: 'active' });
    return token;
  }

  /** A card saved earlier (tests and benches that skip the Snap page): answers its `saved_token_id`. */
  seedCard(opts: { number?: string; digits?: string }): string {
    return this.issueCard(digitsOf(opts.number ?? `4000000000${(opts.digits ?? '4242').slice(-4).padStart(6, '0')}`));
  }

  private bySnapToken(token: string): Tx | undefined {
    return [...this.txs.values()].find((t) => t.snapToken === token);
  }

  /**
   * The Snap card form: the number typed there pays the transaction (`setup_declined` cards are denied,
   * nothing saved), then the buyer goes back to `callbacks.finish` with the order's status.
   */
  private cardForm(snapToken: string, typed: string): SimResponse {
    const tx = this.bySnapToken(snapToken)!;
    if (tx.transaction_status !== 'pending') return { status: 404, html: 'not found' };
    const digits = digitsOf(typed);
    if (digits.length < 12) return { status: 400, html: 'enter the card number' };
    tx.payment_type = 'credit_card';
    tx.extra.masked_card = `${digits.slice(0, 8)}-${digits.slice(-4)}`;
    if (scenarios[scenarioOf(digits)].setupFails) {
      Object.assign(tx.extra, { channel_response_code: '05', channel_response_message: 'Transaction declined' });
      void this.fail(tx.order_id);
    } else void this.pay(tx.order_id, { cardNumber: digits });
    const v = this.view(tx);
    const back = tx.finishUrl ?? this.url;
    return redirectTo(
      `${back}${back.includes('?') ? '&' : '?'}order_id=${encodeURIComponent(tx.order_id)}&status_code=${v.status_code}&transaction_status=${tx.transaction_status}`,
    );
  }

  expire(orderId: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const tx = this.tx(orderId);
    tx.payment_type ??= 'gopay';
    tx.transaction_status = 'expire';
    return this.notify(tx, opts);
  }

  /** Denied by the bank or fraud system (`deny`), or cancelled (`cancel`). */
  fail(orderId: string, opts: DeliveryOptions & { as?: 'deny' | 'cancel' } = {}): Promise<Delivery[]> {
    const tx = this.tx(orderId);
    tx.payment_type ??= 'credit_card';
    tx.transaction_status = opts.as ?? 'deny';
    if (tx.transaction_status === 'deny') tx.fraud_status = 'deny';
    return this.notify(tx, opts);
  }

  /** The notification body exactly as the provider builds it (signature over the strings it sends). */
  notificationFor(tx: Tx, serverKey = this.opts.serverKey): Record<string, unknown> {
    const v = this.view(tx);
    const signature_key = createHash('sha512')
      .update(v.order_id + v.status_code + v.gross_amount + serverKey)
      .digest('hex');
    return { ...v, status_message: 'midtrans payment notification', signature_key };
  }

  private notify(tx: Tx, opts: DeliveryOptions): Promise<Delivery[]> {
    const body = this.notificationFor(tx, opts.forge ? `forged-${hex(8)}` : this.opts.serverKey);
    return this.deliver(tx.notificationUrl ?? this.notificationUrl, () => ({}), JSON.stringify(body), opts);
  }
}
