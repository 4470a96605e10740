import type { Scope } from '../../shared/domain';

/**
 * The token a scope is tagged with in a full-text index: a prefix letter + hex of its UTF-8
 * bytes, so any scope key becomes one token the tokenizer keeps whole.
 */
export const scopeTag = (prefix: string, value: string): string => prefix + Buffer.from(value, 'utf8').toString('hex');

/** The tag of a fact's scope in the facts index. */
export const factScopeTag = (scope: Scope, key: string): string => scopeTag('s', `${scope}:${key}`);
