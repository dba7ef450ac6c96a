/**
 * What `viewer scan` says beside an empty scope (reason `scope-empty`: a wrong prefix or server
 * name, issue 26): the exact location it looked at, and what exists next to it, found by a few
 * listings with a delimiter (one level each, at most `MAX_LISTINGS` pages of `PAGE_KEYS` keys,
 * read-only), run only when the scope was empty:
 * - the servers under the destination, and the closest to a misspelt name;
 * - "this prefix already names a server" when the destination itself holds `base/` or `wals/`;
 * - the server found one level up (the destination goes one segment too deep) or one level down
 *   (one segment missing);
 * - the other format, when the destination holds it (what the standalone page says too).
 *
 * For the operator's own terminal only: locations and server names are configuration, printed
 * here and never by the sidecar or on a page. Nothing read here becomes evidence.
 */
import { FORMAT_ARCHIVE_CLOUD } from '../../contract/primitives.ts';
import type { Destination } from '../../store/destination.ts';
import type { StoreDriver } from '../../store/driver.ts';
import { nearMisses } from '../config/near-miss.ts';

/** Listing pages the hints may use in all. */
export const MAX_LISTINGS = 24;
const PAGE_KEYS = 1000;
/** Folders one level down that are looked into. */
const MAX_DOWN = 12;
/** Names shown in one line. */
const MAX_SHOWN = 12;
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const BARMAN_AREAS = new Set(['base', 'wals']);
const PGBACKREST_AREAS = new Set(['archive', 'backup']);

/** The destination's URL form for a key prefix (`s3://bucket/a/b/`), as DESTINATION_PATH would write it. */
export function locationOf(destination: Destination, keyPrefix: string): string {
  const path = keyPrefix === '' ? '' : keyPrefix;
  switch (destination.provider) {
    case 'store-a':
      return `s3://${destination.bucket}/${path}`;
    case 'store-c':
      return `gs://${destination.bucket}/${path}`;
    case 'store-b': {
      const origin = destination.emulatorOrigin === null ? `https://${destination.account ?? ''}.blob.core.windows.net` : `${destination.emulatorOrigin}/${destination.account ?? ''}`;
      return `${origin}/${destination.bucket}/${path}`;
    }
  }
}

const list = (names: readonly string[]): string => (names.length > MAX_SHOWN ? `${names.slice(0, MAX_SHOWN).join(', ')} and ${names.length - MAX_SHOWN} more` : names.join(', '));
const withSlash = (p: string): string => (p === '' ? '' : `${p}/`);

/** One level under `prefix` (which ends in `/` or is empty): its folder names, within the listing budget. */
class Lister {
  #left = MAX_LISTINGS;
  readonly #driver: StoreDriver;
  readonly #signal: AbortSignal;
  constructor(driver: StoreDriver, signal: AbortSignal) {
    this.#driver = driver;
    this.#signal = signal;
  }

  async folders(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    do {
      if (this.#left <= 0) break;
      this.#left -= 1;
      const page = await this.#driver.listPage({ prefix, delimiter: '/', maxKeys: PAGE_KEYS, signal: this.#signal, ...(token === undefined ? {} : { continuationToken: token }) });
      for (const p of page.prefixes) names.push(p.slice(prefix.length, -1));
      token = page.nextToken ?? undefined;
    } while (token !== undefined && names.length < PAGE_KEYS);
    return names.filter((n) => SERVER_NAME.test(n));
  }

  get exhausted(): boolean {
    return this.#left <= 0;
  }
}

export interface EmptyScope {
  readonly format: string;
  readonly destination: Destination;
  readonly server: string;
}

/**
 * The lines to print (without the `viewer: ` lead) about an empty scope. A store failure during
 * the hints ends them quietly: the scan's own result stands and is printed as always.
 */
export async function emptyScopeHints(driver: StoreDriver, scope: EmptyScope, signal: AbortSignal): Promise<string[]> {
  const { destination, server } = scope;
  const base = withSlash(destination.prefix);
  const lister = new Lister(driver, signal);
  const lines: string[] = [];
  const stanzas = scope.format !== FORMAT_ARCHIVE_CLOUD;
  lines.push(
    stanzas
      ? `scope ${server} is empty: nothing under ${locationOf(destination, `${base}archive/${server}/`)} or ${locationOf(destination, `${base}backup/${server}/`)}`
      : `scope ${server} is empty: nothing under ${locationOf(destination, `${base}${server}/`)}`,
  );
  try {
    const here = await lister.folders(base);
    const foreign = stanzas ? null : [...PGBACKREST_AREAS].every((a) => here.includes(a)) ? 'stanza-repository' : null;
    if (foreign !== null) lines.push(`hint: this looks like a pgBackRest repository: REPOSITORY_FORMAT=stanza-repository (its stanzas are ARCHIVE_SERVER_NAMES)`);
    const candidates = stanzas ? await stanzaNames(lister, base, here) : here.filter((n) => !BARMAN_AREAS.has(n) && !(foreign !== null && PGBACKREST_AREAS.has(n)));
    const last = destination.prefix.split('/').at(-1) ?? '';
    const parent = destination.prefix.includes('/') ? destination.prefix.slice(0, destination.prefix.lastIndexOf('/')) : '';
    if (!stanzas && here.some((n) => BARMAN_AREAS.has(n)) && destination.prefix !== '') {
      lines.push(`hint: this prefix already names a server (${last} holds base/ or wals/): DESTINATION_PATH=${locationOf(destination, parent).replace(/\/$/, '')} with ARCHIVE_SERVER_NAMES=${last}`);
    }
    if (stanzas && here.some((n) => !PGBACKREST_AREAS.has(n)) && !here.some((n) => PGBACKREST_AREAS.has(n))) {
      const first = here.find((n) => !PGBACKREST_AREAS.has(n)) ?? '';
      if ((await lister.folders(`${base}${first}/`)).some((n) => BARMAN_AREAS.has(n))) lines.push('hint: this looks like a Barman cloud repository: REPOSITORY_FORMAT=archive-cloud');
    }
    if (candidates.length > 0) {
      const what = stanzas ? 'stanzas' : 'names';
      lines.push(`hint: ${what} one level under ${locationOf(destination, stanzas ? `${base}{archive,backup}/` : base)}: ${list(candidates)}`);
      const [closest] = nearMisses(server, candidates);
      if (closest !== undefined) lines.push(`hint: did you mean ARCHIVE_SERVER_NAMES=${closest}?`);
    }
    if (destination.prefix !== '') {
      const up = await lister.folders(withSlash(parent));
      const found = stanzas ? [...PGBACKREST_AREAS].every((a) => up.includes(a)) && (await stanzaNames(lister, withSlash(parent), up)).includes(server) : up.includes(server);
      if (found) lines.push(`hint: ${server} exists one level up: DESTINATION_PATH=${locationOf(destination, parent).replace(/\/$/, '')}`);
    }
    for (const folder of here.filter((n) => n !== server).slice(0, MAX_DOWN)) {
      if (lister.exhausted) break;
      const down = `${base}${folder}`;
      const below = await lister.folders(`${down}/`);
      const found = stanzas ? [...PGBACKREST_AREAS].every((a) => below.includes(a)) && (await stanzaNames(lister, `${down}/`, below)).includes(server) : below.includes(server);
      if (found) lines.push(`hint: ${server} exists one level down: DESTINATION_PATH=${locationOf(destination, down)}`);
    }
    if (lines.length === 1) lines.push(here.length === 0 ? `hint: nothing at all under ${locationOf(destination, base)}: check the bucket, the prefix and STORE_ENDPOINT_URL` : `hint: no ${stanzas ? 'stanza' : 'server'} named like ${server} was found next to it`);
  } catch {
    // The hints are a courtesy: the scan's result is already decided.
  }
  return lines;
}

/** The stanzas of a pgBackRest repository root whose level is `here`. */
async function stanzaNames(lister: Lister, base: string, here: readonly string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const area of PGBACKREST_AREAS) if (here.includes(area)) for (const n of await lister.folders(`${base}${area}/`)) names.add(n);
  return [...names].sort();
}
