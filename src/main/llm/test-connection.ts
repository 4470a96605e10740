/**
 * The settings screen's "Test connection": one GET <baseUrl>/models against the OpenAI-compatible
 * endpoint (Ollama answers it too), with the configured key, bounded in time. Every failure
 * names the setting that most likely needs fixing.
 */
export interface ConnectionCheck {
  ok: boolean;
  status: number | null;
  message: string;
  models: string[];
  modelFound: boolean | null;
  setting: string | null;
  elapsedMs: number;
}

const MAX_BODY = 1024 * 1024;

function modelNames(body: unknown): string[] {
  const b = body as { data?: { id?: unknown }[]; models?: { name?: unknown; model?: unknown }[] } | null;
  const list = Array.isArray(b?.data)
    ? b.data.map((m) => m?.id)
    : Array.isArray(b?.models)
      ? b.models.map((m) => m?.name ?? m?.model)
      : [];
  return list.filter((x): x is string => typeof x === 'string').slice(0, 500);
}

function fromStatus(status: number, url: string): Pick<ConnectionCheck, 'message' | 'setting'> {
  if (status === 401 || status === 403)
    return { message: `The endpoint refused the key (HTTP ${status}). Check llm.apiKey.`, setting: 'llm.apiKey' };
  if (status === 404)
    return {
      message: `Nothing at ${url} (HTTP 404). llm.baseUrl usually ends in /v1 (e.g. http://127.0.0.1:11434/v1).`,
      setting: 'llm.baseUrl',
    };
  return { message: `The endpoint answered HTTP ${status}. Check llm.baseUrl.`, setting: 'llm.baseUrl' };
}

function withModel(models: string[], model: string, elapsedMs: number): ConnectionCheck {
  const base = { ok: true, status: 200, models, elapsedMs };
  if (!model) {
    return {
      ...base,
      modelFound: null,
      message: `Connected: ${models.length} model${models.length === 1 ? '' : 's'} available. Set llm.model to one of them.`,
      setting: 'llm.model',
    };
  }
  const found = models.length === 0 || models.includes(model) || models.some((m) => m.split(':')[0] === model);
  return found
    ? {
        ...base,
        modelFound: models.length ? true : null,
        message: `Connected; model ${model} is available.`,
        setting: null,
      }
    : {
        ...base,
        ok: false,
        modelFound: false,
        message: `Connected, but ${model} is not among the ${models.length} models it offers. Check llm.model.`,
        setting: 'llm.model',
      };
}

const NO_ENDPOINT: ConnectionCheck = {
  ok: false,
  status: null,
  message: 'No endpoint is set: extraction, summaries and Dream use the built-in offline defaults.',
  models: [],
  modelFound: null,
  setting: 'llm.baseUrl',
  elapsedMs: 0,
};

const failed = (status: number | null, elapsedMs: number, why: Pick<ConnectionCheck, 'message' | 'setting'>) => ({
  ok: false,
  status,
  models: [],
  modelFound: null,
  elapsedMs,
  ...why,
});

/** What a network failure (nothing listening, a timeout) says, and the setting it points at. */
function unreachable(e: unknown, url: string, timeoutMs: number): Pick<ConnectionCheck, 'message' | 'setting'> {
  const err = e as Error & { cause?: { code?: string } };
  const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
  return {
    message: timedOut
      ? `No answer from ${url} within ${timeoutMs} ms. Check llm.baseUrl (or raise llm.timeoutMs).`
      : `Nothing answered at ${url} (${err.cause?.code ?? err.message}). Check llm.baseUrl.`,
    setting: 'llm.baseUrl',
  };
}

export async function testConnection(
  options: { baseUrl: string; model: string; apiKey: string; timeoutMs: number },
  fetchImpl: typeof fetch = fetch,
): Promise<ConnectionCheck> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
  if (!baseUrl) return NO_ENDPOINT;
  const url = `${baseUrl}/models`;
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(url, {
      headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: 'error',
    });
    text = (await response.text()).slice(0, MAX_BODY);
  } catch (e) {
    return failed(null, elapsed(), unreachable(e, url, options.timeoutMs));
  }
  if (!response.ok) return failed(response.status, elapsed(), fromStatus(response.status, url));
  try {
    return withModel(modelNames(JSON.parse(text)), options.model.trim(), elapsed());
  } catch {
    return failed(response.status, elapsed(), {
      message: `${url} answered, but not with JSON: is llm.baseUrl the OpenAI-compatible address?`,
      setting: 'llm.baseUrl',
    });
  }
}
