/**
 * What `viewer scan` says beside an empty scope (reason `scope-empty`: a wrong prefix or server
 * name, issue 26): the exact location it looked at, and what exists next to it, found by a few
 * listings with a delimiter (one level each, at most `MAX_LISTINGS` pages of `PAGE_KEYS` keys,
 * read-only), run only when the scope was empty. Every rule is read from the formats' layouts
 * (`LayoutShape`: the scope's own and, through the registry, every other format's), never from a
 * format's name:
 * - the scopes next to it (the folders under the destination, or under each of the format's root
 *   areas present), and the closest to a misspelt name;
 * - "this prefix already names a <scope>" when the destination itself holds one of the format's
 *   scope areas;
 * - the scope found one level up (the destination goes one segment too deep) or one level down
 *   (one segment missing);
 * - another registered format, when the destination holds its layout (what the standalone page
 *   says too).
 *
 * For the operator's own terminal only: locations and server names are configuration, printed
 * here and never by the sidecar or on a page. Nothing read here becomes evidence.
 */
import { foreignLayouts } from '../../format/registry.ts';
import type { LayoutShape, RepositoryFormat } from '../../format/seam.ts';
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
/** What `ARCHIVE_SERVER_NAMES` calls a scope: a format whose scopes are called otherwise says which they are. */
const VARIABLE_NOUN = 'server';

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
  /** The scope's repository format: its layout, and its id to tell the other registered formats from it. */
  readonly format: Pick<RepositoryFormat, 'id' | 'layout'>;
  readonly destination: Destination;
  readonly server: string;
}

/** `a/` for one area, `{a,b}/` for several: the areas as one location pattern. */
const areasPattern = (areas: readonly string[]): string => (areas.length === 1 ? `${areas[0] ?? ''}/` : `{${areas.join(',')}}/`);

/** The hint naming another format whose layout the destination holds. */
const foreignHint = (id: string, layout: LayoutShape): string =>
  `hint: this looks like ${layout.describedAs}: REPOSITORY_FORMAT=${id}${layout.scopeNoun === VARIABLE_NOUN ? '' : ` (its ${layout.scopeNoun}s are ARCHIVE_SERVER_NAMES)`}`;

/**
 * The lines to print (without the `viewer: ` lead) about an empty scope. A store failure during
 * the hints ends them quietly: the scan's own result stands and is printed as always.
 */
export async function emptyScopeHints(driver: StoreDriver, scope: EmptyScope, signal: AbortSignal): Promise<string[]> {
  const { destination, server } = scope;
  const own = scope.format.layout;
  const others = foreignLayouts(scope.format);
  const base = withSlash(destination.prefix);
  const lister = new Lister(driver, signal);
  const lines: string[] = [];
  // A format with root areas keeps each scope one level under every one of them; else a scope is a folder of its own.
  const underAreas = own.rootAreas.length > 0;
  const scopeLocations = underAreas ? own.rootAreas.map((a) => `${base}${a}/${server}/`) : [`${base}${server}/`];
  lines.push(`scope ${server} is empty: nothing under ${scopeLocations.map((l) => locationOf(destination, l)).join(' or ')}`);
  try {
    const here = await lister.folders(base);
    // Another format with root areas: all of them directly under the destination.
    const rootForeign = others.filter((o) => o.layout.rootAreas.length > 0 && o.layout.rootAreas.every((a) => here.includes(a)));
    for (const o of rootForeign) lines.push(foreignHint(o.id, o.layout));
    const foreignAreas = new Set(rootForeign.flatMap((o) => o.layout.rootAreas));
    const candidates = underAreas ? await scopesUnder(lister, own, base, here) : here.filter((n) => !own.scopeAreas.includes(n) && !foreignAreas.has(n));
    const last = destination.prefix.split('/').at(-1) ?? '';
    const parent = destination.prefix.includes('/') ? destination.prefix.slice(0, destination.prefix.lastIndexOf('/')) : '';
    if (here.some((n) => own.scopeAreas.includes(n)) && destination.prefix !== '') {
      const areas = own.scopeAreas.map((a) => `${a}/`).join(' or ');
      lines.push(`hint: this prefix already names a ${own.scopeNoun} (${last} holds ${areas}): DESTINATION_PATH=${locationOf(destination, parent).replace(/\/$/, '')} with ARCHIVE_SERVER_NAMES=${last}`);
    }
    // Another format whose scopes are folders of their own, marked by its scope areas: the first
    // folder that is none of this format's root areas, where none of them is present.
    const first = here.some((n) => own.rootAreas.includes(n)) ? undefined : here.find((n) => !own.rootAreas.includes(n));
    const scopeForeign = others.filter((o) => o.layout.rootAreas.length === 0 && o.layout.scopeAreas.length > 0);
    if (first !== undefined && scopeForeign.length > 0) {
      const inside = await lister.folders(`${base}${first}/`);
      for (const o of scopeForeign) if (inside.some((n) => o.layout.scopeAreas.includes(n))) lines.push(foreignHint(o.id, o.layout));
    }
    if (candidates.length > 0) {
      const what = underAreas ? `${own.scopeNoun}s` : 'names';
      lines.push(`hint: ${what} one level under ${locationOf(destination, underAreas ? `${base}${areasPattern(own.rootAreas)}` : base)}: ${list(candidates)}`);
      const [closest] = nearMisses(server, candidates);
      if (closest !== undefined) lines.push(`hint: did you mean ARCHIVE_SERVER_NAMES=${closest}?`);
    }
    if (destination.prefix !== '') {
      const up = withSlash(parent);
      if (await holdsScope(lister, own, up, await lister.folders(up), server)) lines.push(`hint: ${server} exists one level up: DESTINATION_PATH=${locationOf(destination, parent).replace(/\/$/, '')}`);
    }
    for (const folder of here.filter((n) => n !== server).slice(0, MAX_DOWN)) {
      if (lister.exhausted) break;
      const down = `${base}${folder}`;
      if (await holdsScope(lister, own, `${down}/`, await lister.folders(`${down}/`), server)) lines.push(`hint: ${server} exists one level down: DESTINATION_PATH=${locationOf(destination, down)}`);
    }
    if (lines.length === 1) lines.push(here.length === 0 ? `hint: nothing at all under ${locationOf(destination, base)}: check the bucket, the prefix and STORE_ENDPOINT_URL` : `hint: no ${own.scopeNoun} named like ${server} was found next to it`);
  } catch {
    // The hints are a courtesy: the scan's result is already decided.
  }
  return lines;
}

/** Whether the level `prefix` (whose folders are `here`) holds the scope `server` of the layout: all its root areas with the scope under one, or the scope's own folder. */
async function holdsScope(lister: Lister, layout: LayoutShape, prefix: string, here: readonly string[], server: string): Promise<boolean> {
  if (layout.rootAreas.length === 0) return here.includes(server);
  return layout.rootAreas.every((a) => here.includes(a)) && (await scopesUnder(lister, layout, prefix, here)).includes(server);
}

/** The scopes of a layout with root areas at the level `prefix` (whose folders are `here`): the folders under each root area present, sorted. */
async function scopesUnder(lister: Lister, layout: LayoutShape, prefix: string, here: readonly string[]): Promise<string[]> {
  const names = new Set<string>();
  for (const area of layout.rootAreas) if (here.includes(area)) for (const n of await lister.folders(`${prefix}${area}/`)) names.add(n);
  return [...names].sort();
}
