/**
 * The SCIM filters svc reads (RFC 7644 §3.4.2.2), the ones Entra ID and Okta send: comparisons
 * `<attribute> eq "<value>"` joined by `and`, and a group's `members[value eq "<id>"]` (Entra ID
 * asks whether a person is in a group that way). Attribute names and operators are
 * case-insensitive (RFC 7644 §3.4.2.2); anything else is refused `invalidFilter`, never guessed at.
 */
import { ScimError } from '@svc/errors';
import { SCIM_MAX_FILTER } from '@svc/sso';

/** One comparison: the attribute (lower-cased), and the value it must equal. */
export interface Comparison {
  attribute: string;
  value: string | boolean;
}

const TERM = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*/i;
const MEMBER = /^\s*members\[\s*value\s+eq\s+("(?:[^"\\]|\\.)*")\s*\]\s*/i;
const AND = /^and\s+/i;

function literal(raw: string): string | boolean {
  if (/^true$/i.test(raw)) return true;
  if (/^false$/i.test(raw)) return false;
  try {
    return JSON.parse(raw) as string;
  } catch {
    throw new ScimError('invalidFilter', `The filter's value ${raw.slice(0, 60)} is not a JSON string.`);
  }
}

/** The comparisons of a filter that must all hold; refused `invalidFilter` when it is not one svc reads. */
export function parseFilter(filter: string, attributes: readonly string[]): Comparison[] {
  if (filter.length > SCIM_MAX_FILTER) throw new ScimError('invalidFilter', `A filter is at most ${SCIM_MAX_FILTER} characters.`);
  const out: Comparison[] = [];
  let rest = filter.trim();
  for (;;) {
    const member = MEMBER.exec(rest);
    const term = member ? null : TERM.exec(rest);
    if (member) out.push({ attribute: 'members.value', value: literal(member[1]!) });
    else if (term && attributes.includes(term[1]!.toLowerCase())) out.push({ attribute: term[1]!.toLowerCase(), value: literal(term[2]!) });
    else
      throw new ScimError(
        'invalidFilter',
        `svc reads filters of the form ATTRIBUTE eq "VALUE" joined by and, on ${attributes.join(', ')}; not "${rest.slice(0, 80)}".`,
      );
    rest = rest.slice((member ?? term)![0].length);
    if (rest === '') return out;
    const and = AND.exec(rest);
    if (!and) throw new ScimError('invalidFilter', `Filters are joined by "and" only; not "${rest.slice(0, 80)}".`);
    rest = rest.slice(and[0].length);
  }
}
