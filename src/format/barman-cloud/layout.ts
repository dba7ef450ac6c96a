/**
 * barman-cloud's layout as other formats and the hints see it (`LayoutShape`): every server is a
 * folder directly under the destination, holding `base/` (the backups, each with its
 * `backup.info`) and `wals/`.
 */
import type { LayoutShape } from '../seam.ts';

/** The two folders of a server prefix. */
const SCOPE_AREAS = ['base', 'wals'] as const;

/** At most this many folders are looked into to recognise the layout. */
const SERVERS_CHECKED = 8;

/** A backup's metadata, relative to the destination: `<server>/base/<backup id>/backup.info`. */
const BACKUP_INFO = /^[^/]+\/base\/[^/]+\/backup\.info$/;

export const serverLayout: LayoutShape = {
  describedAs: 'a Barman cloud repository',
  scopeNoun: 'server',
  rootAreas: [],
  scopeAreas: SCOPE_AREAS,
  async holdsAt(access, names) {
    for (const name of names.slice(0, SERVERS_CHECKED)) {
      const inner = await access.folders(`${name}/`);
      if (SCOPE_AREAS.some((a) => inner.includes(`${name}/${a}/`))) return true;
    }
    return false;
  },
  ownsKey: (key) => BACKUP_INFO.test(key),
};
