/**
 * Which setting an extraction failure points at, from the error text the engine stores (it
 * names sizes and statuses, never content). Null when the failure is not a settings problem.
 */
export function settingToFix(error: string | null | undefined): { setting: string; advice: string } | null {
  if (!error) return null;
  const e = error.toLowerCase();
  if (e.includes('llm.model is not set'))
    return { setting: 'llm.model', advice: 'Set llm.model to a model the endpoint has.' };
  if (/http 40[13]\b/.test(e))
    return { setting: 'llm.apiKey', advice: 'The endpoint refused the key: check llm.apiKey.' };
  if (/http 404\b/.test(e))
    return {
      setting: 'llm.model',
      advice: 'HTTP 404: check llm.model (a model the server has) and llm.baseUrl (usually ending in /v1).',
    };
  if (e.includes('timeout'))
    return {
      setting: 'llm.timeoutMs',
      advice: 'The model did not answer in time: raise llm.timeoutMs or pick a faster model.',
    };
  if (e.includes('unreachable') || e.includes('econnrefused') || e.includes('enotfound') || e.includes('fetch failed'))
    return {
      setting: 'llm.baseUrl',
      advice: 'Nothing answered at llm.baseUrl: check the address and that the server runs.',
    };
  if (/http 5\d\d\b/.test(e))
    return {
      setting: 'llm.baseUrl',
      advice: 'The model server failed; if it keeps failing, check llm.baseUrl and llm.model.',
    };
  if (e.includes('json') || e.includes('choices') || e.includes('memories') || e.includes('too large'))
    return {
      setting: 'llm.model',
      advice: 'The model’s replies were not usable: pick a model that supports JSON output (llm.model).',
    };
  return null;
}
