/**
 * A made-up repository format for tests only: "Toytool", whose repository nobody writes. It exists
 * to prove the format seam (issue 27): registered from its test with `registerFormat`, it is
 * discovered, scanned through `scanScope`, published, rendered on the standalone page and printed
 * by `viewer scan --output text` without any file outside this folder knowing it.
 *
 * The layout, under the destination prefix, one folder per scope (a "ledger"):
 *
 *     <scope>/ledger/<backup-id>.json   one small JSON object per backup:
 *                                       {"status": "SEALED" | "BROKEN" | "OPEN", "timeline": 1,
 *                                        "begin_wal": "<24 hex>", "end_wal": "<24 hex>",
 *                                        "begin_lsn": "<X/X>", "end_lsn": "<X/X>",
 *                                        "begin_time": "<RFC 3339>", "end_time": "<RFC 3339>",
 *                                        "system_id": "<decimal>"}
 *     <scope>/stream/<24 hex>           a whole WAL segment, uncompressed, 16 MiB (Toytool knows no other size)
 *     <scope>/stream/<8 hex>.history    a timeline history file as PostgreSQL wrote it
 *
 * v1alpha1 is closed: the format publishes the common summary under the archive-cloud wire format
 * (its `details` payload filled with `commonPayload`). On the wire a sealed ledger is the completed
 * status `DONE`, a broken one `FAILED`, an open one `STARTED` (the statuses the wire allows).
 */
import { mapLimit } from '../../../src/common/concurrency.ts';
import { commonSummary } from '../../../src/contract/details-view.ts';
import { BACKUP_ID_PATTERN, DETAILS_TYPE_ARCHIVE_CLOUD, FORMAT_ARCHIVE_CLOUD, SERVER_NAME_PATTERN, WAL_NAME_PATTERN } from '../../../src/contract/values.ts';
import { DEFAULT_SEGMENT_SIZE, formatLsn, geometry, parseLsn, parseWalName, positionOfLsn } from '../../../src/postgres/wal.ts';
import {
  commonPayload,
  verdictMaker,
  type Discovery,
  type FormatBackup,
  type FormatCatalog,
  type LayoutShape,
  type ListedObject,
  type RepositoryFormat,
  type ScopeAccess,
  type Shelf,
  type WalEntry,
} from '../../../src/format/seam.ts';

export const TOY_ID = 'toy-layout';
export const TOY_TOOL = 'Toytool';

/** Toytool never writes a ledger larger than this; a larger one is refused unread (the one size ceiling). */
export const MAX_LEDGER_BYTES = 4096;
const HISTORY_MAX_BYTES = 64 * 1024;
/** At most this many scope folders are looked into to recognise the layout. */
const SCOPES_CHECKED = 8;

const AREAS = ['ledger', 'stream'] as const;
const LEDGER_KEY = /^ledger\/([^/]+)\.json$/;
const SEGMENT_KEY = /^stream\/([0-9A-F]{24})$/;
const HISTORY_KEY = /^stream\/([0-9A-F]{8})\.history$/;
const WAL_NAME = new RegExp(WAL_NAME_PATTERN);
const BACKUP_ID = new RegExp(BACKUP_ID_PATTERN);
const SCOPE_NAME = new RegExp(SERVER_NAME_PATTERN);
const SYSTEM_ID = /^(?:0|[1-9][0-9]{0,19})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

export const REASONS = {
  'ledger-sealed': 'The ledger is sealed and the WAL needed for consistency is present (Toytool names no artifacts to check).',
  'ledger-broken': 'Toytool recorded the backup as broken.',
  'ledger-open': 'The ledger is open: Toytool has not sealed the backup.',
  'ledger-malformed': 'The ledger is not a JSON object with a status Toytool writes.',
  'ledger-too-large': 'The ledger is larger than any Toytool writes.',
  'ledger-incomplete': 'The sealed ledger lacks WAL names, LSNs or a timeline that agree with each other.',
  'ledger-unreadable': 'The ledger is listed but could not be read (gone since the listing, or behind a key viewer does not hold).',
} as const;
type Code = keyof typeof REASONS;

const SHELVES: Partial<Record<Code, Shelf>> = {
  'ledger-broken': 'failed',
  'ledger-open': 'in progress or abandoned',
  'ledger-malformed': 'malformed',
  'ledger-too-large': 'malformed',
  'ledger-unreadable': 'unsupported',
};
const verdict = verdictMaker<Code>(REASONS, SHELVES);

const WIRE_STATUS = { SEALED: 'DONE', BROKEN: 'FAILED', OPEN: 'STARTED' } as const;
type LedgerStatus = keyof typeof WIRE_STATUS;

interface Ledger {
  readonly status: LedgerStatus;
  readonly timeline: number | null;
  readonly beginWal: string | null;
  readonly endWal: string | null;
  readonly beginLsn: bigint | null;
  readonly endLsn: bigint | null;
  readonly beginAt: string | null;
  readonly endAt: string | null;
  readonly systemId: string | null;
}

type LedgerReading = { readonly ok: true; readonly ledger: Ledger } | { readonly ok: false; readonly code: 'ledger-malformed' | 'ledger-too-large' | 'ledger-unreadable' };

const text = (v: unknown, shape: RegExp): string | null => (typeof v === 'string' && shape.test(v) ? v : null);
const lsn = (v: unknown): bigint | null => (typeof v === 'string' ? parseLsn(v) : null);
const time = (v: unknown): string | null => {
  const t = text(v, RFC3339);
  return t === null || Number.isNaN(Date.parse(t)) ? null : t;
};

/** One ledger's bytes: a JSON object with a known status, each other field kept only when it has its shape. */
export function parseLedger(bytes: Uint8Array): LedgerReading {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, code: 'ledger-malformed' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, code: 'ledger-malformed' };
  const o = value as Record<string, unknown>;
  if (o['status'] !== 'SEALED' && o['status'] !== 'BROKEN' && o['status'] !== 'OPEN') return { ok: false, code: 'ledger-malformed' };
  const timeline = typeof o['timeline'] === 'number' && Number.isInteger(o['timeline']) && o['timeline'] >= 1 && o['timeline'] <= 0xffffffff ? o['timeline'] : null;
  return {
    ok: true,
    ledger: {
      status: o['status'],
      timeline,
      beginWal: text(o['begin_wal'], WAL_NAME),
      endWal: text(o['end_wal'], WAL_NAME),
      beginLsn: lsn(o['begin_lsn']),
      endLsn: lsn(o['end_lsn']),
      beginAt: time(o['begin_time']),
      endAt: time(o['end_time']),
      systemId: text(o['system_id'], SYSTEM_ID),
    },
  };
}

const G = geometry(DEFAULT_SEGMENT_SIZE);

/** Each LSN lies in the segment its WAL name names, on the ledger's timeline, begin before end (otherwise none of them is trusted). */
function placeable(l: Ledger): boolean {
  const at = (w: string | null, p: bigint | null) => {
    const named = w === null ? null : parseWalName(w, G);
    return named !== null && p !== null && named.timeline === l.timeline && named.position === positionOfLsn(p, G);
  };
  return at(l.beginWal, l.beginLsn) && at(l.endWal, l.endLsn) && (l.beginLsn ?? 0n) <= (l.endLsn ?? 0n);
}

function formatBackup(id: string, r: LedgerReading): FormatBackup {
  const l = r.ok ? r.ledger : null;
  const trusted = l !== null && placeable(l) ? l : null;
  const decided = !r.ok ? verdict('unknown', r.code) : r.ledger.status === 'BROKEN' ? verdict('unhealthy', 'ledger-broken') : r.ledger.status === 'OPEN' ? verdict('unknown', 'ledger-open') : null;
  return {
    fields: {
      backup_id: id,
      status: l === null ? null : WIRE_STATUS[l.status],
      // Toytool takes full backups only; an unreadable ledger's type is unknown.
      backup_type: l === null ? null : 'full',
      system_id: l?.systemId ?? null,
      postgresql_version: null,
      timeline: l?.timeline ?? null,
      wal_segment_size_bytes: l === null ? null : DEFAULT_SEGMENT_SIZE,
      begin_wal: trusted?.beginWal ?? null,
      end_wal: trusted?.endWal ?? null,
      begin_lsn: trusted?.beginLsn == null ? null : formatLsn(trusted.beginLsn),
      end_lsn: trusted?.endLsn == null ? null : formatLsn(trusted.endLsn),
      begin_at: l?.beginAt ?? null,
      end_at: l?.endAt ?? null,
      logical_bytes: null,
      deduplicated_bytes: null,
      stored_artifact_bytes: null,
      compression: null,
      encryption: null,
      artifact_count: null,
      tablespace_count: null,
    },
    decided,
    unplaceable: verdict('unknown', 'ledger-incomplete'),
    otherwise: verdict('healthy', 'ledger-sealed'),
    completed: l?.status === 'SEALED',
    // A ledger that cannot be read may be a sealed one.
    mayHaveCompleted: l === null || l.status === 'SEALED',
    standalone: false,
    trusted: { timeline: trusted?.timeline ?? null, endLsn: trusted?.endLsn ?? null, endAt: trusted?.endAt ?? null },
    label: { name: null, keep: null },
    dependsOn: [],
  };
}

async function readCatalog(access: ScopeAccess, maxBackups: number): Promise<FormatCatalog> {
  const ids: string[] = [];
  let unknownObjects = 0;
  let truncated = false;
  for await (const page of access.objects('ledger/')) {
    for (const obj of page) {
      const id = LEDGER_KEY.exec(obj.key)?.[1];
      if (id === undefined || !BACKUP_ID.test(id)) unknownObjects += 1;
      else if (ids.length < maxBackups) ids.push(id);
      else truncated = true;
    }
  }
  const readings = await mapLimit(ids, access.concurrency, async (id): Promise<LedgerReading> => {
    const r = await access.read(`ledger/${id}.json`, MAX_LEDGER_BYTES);
    return r.status === 'found' ? parseLedger(r.bytes) : { ok: false, code: r.status === 'too-large' ? 'ledger-too-large' : 'ledger-unreadable' };
  });
  const backups = ids.map((id, i) => formatBackup(id, readings[i] ?? { ok: false, code: 'ledger-unreadable' }));
  const systemIds = new Set(readings.flatMap((r) => (r.ok && r.ledger.systemId !== null ? [r.ledger.systemId] : [])));
  return { backups, geometry: G, geometryIssue: null, systemIds, truncated, unknownObjects };
}

function walEntry(obj: ListedObject, segmentSize: number | null): WalEntry {
  const segment = SEGMENT_KEY.exec(obj.key)?.[1];
  if (segment !== undefined) return { kind: 'segment', name: segment, compressed: false, sizeOk: segmentSize === null || obj.size === segmentSize, receivedAt: obj.receivedAt };
  const history = HISTORY_KEY.exec(obj.key)?.[1];
  if (history !== undefined) return { kind: 'history', timeline: Number.parseInt(history, 16), ref: { key: obj.key, encoding: null }, receivedAt: obj.receivedAt };
  return { kind: 'unknown', receivedAt: obj.receivedAt };
}

/** A scope is a folder directly under the destination, named as the wire allows, holding `ledger/` or `stream/`. */
async function isScope(access: ScopeAccess, folder: string): Promise<boolean> {
  if (!SCOPE_NAME.test(folder.slice(0, -1))) return false;
  const inner = await access.folders(folder);
  return AREAS.some((a) => inner.includes(`${folder}${a}/`));
}

export const toyLayout: LayoutShape = {
  describedAs: 'a Toytool ledger',
  scopeNoun: 'ledger',
  rootAreas: [],
  scopeAreas: AREAS,
  async holdsAt(access, names) {
    for (const name of names.slice(0, SCOPES_CHECKED)) if (await isScope(access, `${name}/`)) return true;
    return false;
  },
  ownsKey: (key) => /^[^/]+\/ledger\/[^/]+\.json$/.test(key),
};

export const toyFormat: RepositoryFormat = {
  id: TOY_ID,
  wireFormat: FORMAT_ARCHIVE_CLOUD,
  sidecar: false,
  tool: TOY_TOOL,
  layout: toyLayout,
  // Its own fact, from the common summary it publishes: the sealed ledgers (the completed backups).
  facts(details) {
    const c = commonSummary(details);
    if (c === null) return null;
    const sealed = c.retention.visible_backups;
    return {
      page: [{ label: 'Sealed backups', value: { kind: 'count', value: sealed } }],
      text: [{ label: 'ledger', text: `${sealed === null ? 'unknown' : sealed} sealed` }],
    };
  },
  ownHeadings: [{ status: WIRE_STATUS.OPEN, heading: 'Open ledgers', note: (tool) => `Ledgers ${tool} has opened and not sealed: still running, or abandoned.` }],
  advice: {
    'ledger-sealed': 'Nothing to do.',
    'ledger-broken': 'Read {tool}\'s log of that run and take a new backup.',
    'ledger-open': 'Wait for {tool} to seal the ledger; if it never does, the backup was abandoned.',
    'ledger-malformed': 'Look at the ledger: it is not one {tool} writes (a damaged or foreign file).',
    'ledger-too-large': 'Look at the ledger: it is larger than {tool} writes.',
    'ledger-incomplete': 'Look at the ledger\'s WAL names, LSNs and timeline: they are missing or disagree.',
    'ledger-unreadable': 'Read the ledger with {tool}: viewer could not.',
  },
  scopeRoots(prefix, scope) {
    const base = prefix === '' ? `${scope}/` : `${prefix}/${scope}/`;
    return { base, roots: [base] };
  },
  async discoverScopes(access, others): Promise<Discovery> {
    const scopes: string[] = [];
    const strangers: string[] = [];
    let unscopedObjects = 0;
    for await (const page of access.level('')) {
      unscopedObjects += page.objects.length;
      for (const folder of page.folders) ((await isScope(access, folder)) ? scopes : strangers).push(folder);
    }
    for (const folder of strangers) for await (const page of access.objects(folder)) unscopedObjects += page.length;
    let foreignFormat: string | null = null;
    if (scopes.length === 0) {
      const names = strangers.map((f) => f.slice(0, -1));
      for (const other of others) {
        if (await other.layout.holdsAt(access, names)) {
          foreignFormat = other.id;
          break;
        }
      }
    }
    return { servers: scopes.map((f) => f.slice(0, -1)).sort(), unscopedObjects, foreignFormat };
  },
  details: (d) => ({ type: DETAILS_TYPE_ARCHIVE_CLOUD, archive_cloud: commonPayload(d) }),
  capabilities: {
    'object-inventory': 'supported',
    'catalog-listing': 'supported',
    // The ledger names no artifacts; Toytool writes no chains and no cipher.
    'structural-artifact-validation': 'unsupported',
    'dependency-chain-validation': 'unsupported',
    'wal-continuity': 'supported',
    'timeline-history-traversal': 'supported',
    'encrypted-metadata': 'unsupported',
    'observed-recovery-coverage': 'supported',
    'retention-expectation-comparison': 'supported',
  },
  readCatalog,
  planWal(access) {
    return Promise.resolve({
      parts: (segmentSize) => [
        (async function* () {
          for await (const page of access.objects('stream/')) yield page.map((obj) => walEntry(obj, segmentSize));
        })(),
      ],
    });
  },
  async readOthers(access, scope, others) {
    let unknownObjects = 0;
    let foreignLayout = false;
    for await (const page of access.level('')) {
      unknownObjects += page.objects.length;
      for (const folder of page.folders) {
        if (AREAS.some((a) => folder === `${a}/`)) continue;
        for await (const inner of access.objects(folder)) {
          unknownObjects += inner.length;
          foreignLayout ||= inner.some((obj) => others.some((o) => o.layout.ownsKey(`${scope}/${obj.key}`)));
        }
      }
    }
    return { unknownObjects, foreignLayout };
  },
  async readHistory(access, ref, maxBytes) {
    const r = await access.read(ref.key, Math.min(maxBytes, HISTORY_MAX_BYTES));
    if (r.status === 'absent' || r.status === 'key-required') return { ok: false, status: 'unread' };
    if (r.status === 'too-large') return { ok: false, status: 'invalid', reason: 'history-too-large' };
    return { ok: true, bytes: r.bytes };
  },
  // Toytool has no retention of its own that deletes WAL: no gap is ever expected.
  classifyGaps: (gaps) => gaps.map(() => 'unexplained'),
  // `KEEP <n>`: the newest n sealed backups.
  parseRetentionPolicy(policy) {
    const m = /^KEEP\s+([1-9][0-9]{0,5})$/i.exec(policy.trim());
    return m === null ? null : { kind: 'redundancy', count: Number(m[1]) };
  },
};
