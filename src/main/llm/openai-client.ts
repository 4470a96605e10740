import type { z } from 'zod';
import type { Settings } from '../settings';

/**
 * A small client for OpenAI-compatible chat-completions endpoints (OpenAI, Ollama, llama.cpp,
 * vLLM, LM Studio ...) that asks for one JSON object and validates it with a zod schema.
 * Extraction, Dream and compaction share it. Errors never carry the reply's content: replies can
 * hold whatever the transcript held, secrets included, so only sizes are reported.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatClientConfig {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Replies larger than this are refused without being read further. */
  maxResponseBytes?: number;
  /** First pause between retries; doubles each time. */
  retryDelayMs?: number;
  /** Ask the server for JSON mode (response_format json_object). */
  jsonMode?: boolean;
}

export interface ChatJsonOptions {
  timeoutMs: number;
  /** Extra attempts after the first, for transport failures, 429 and 5xx only. */
  maxRetries: number;
  maxTokens: number;
  temperature?: number;
  signal?: AbortSignal;
}

export type LlmErrorKind =
  'config' | 'timeout' | 'cancelled' | 'network' | 'http' | 'too-large' | 'invalid-json' | 'invalid-shape';

export class LlmError extends Error {
  constructor(
    public readonly kind: LlmErrorKind,
    message: string,
    public readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }

  get retryable(): boolean {
    if (this.kind === 'network') return true;
    return this.kind === 'http' && this.status !== undefined && (this.status === 429 || this.status >= 500);
  }
}

export interface ChatClient {
  readonly model: string;
  chatJson<S extends z.ZodType>(messages: ChatMessage[], schema: S, options: ChatJsonOptions): Promise<z.output<S>>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** The endpoint configured in settings.yaml (key from there or EVOFLUX_LLM_API_KEY), or null. */
export function llmConfigFromSettings(
  settings: Settings,
  env: NodeJS.ProcessEnv = process.env,
): ChatClientConfig | null {
  const baseUrl = settings.llm.baseUrl.trim();
  if (!baseUrl) return null;
  return { baseUrl, model: settings.llm.model.trim(), apiKey: settings.llm.apiKey || env.EVOFLUX_LLM_API_KEY || '' };
}

/** Drops a ```json fence around the reply, which many models add despite JSON mode. */
export function stripCodeFence(text: string): string {
  let t = text.trim();
  if (t.startsWith('```')) {
    const lines = t.split('\n');
    lines.shift();
    if (lines.length && lines[lines.length - 1]!.trim().startsWith('```')) lines.pop();
    t = lines.join('\n').trim();
  }
  return t;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new LlmError('too-large', `LLM reply too large: ${declared} bytes (limit ${maxBytes})`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new LlmError('too-large', `LLM reply too large: more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('cancelled', 'LLM call cancelled'));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new LlmError('cancelled', 'LLM call cancelled'));
      },
      { once: true },
    );
  });

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'reply'}: ${issue.message}` : 'unexpected shape';
}

/** The completion's message content, parsed as JSON and checked against the schema. */
function parseReply<S extends z.ZodType>(raw: string, schema: S): z.output<S> {
  let content: unknown;
  try {
    content = (JSON.parse(raw) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    throw new LlmError('invalid-json', `LLM endpoint returned a body that is not JSON (${raw.length} chars)`);
  }
  if (typeof content !== 'string') {
    throw new LlmError('invalid-shape', 'LLM reply has no choices[0].message.content');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripCodeFence(content));
  } catch {
    throw new LlmError('invalid-json', `LLM returned invalid JSON (${content.length} chars)`);
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    throw new LlmError('invalid-shape', `LLM reply does not match the expected shape: ${describeIssue(checked.error)}`);
  }
  return checked.data;
}

export function createChatClient(config: ChatClientConfig): ChatClient {
  const url = config.baseUrl.replace(/\/+$/, '') + '/chat/completions';
  const maxBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const retryDelayMs = config.retryDelayMs ?? 500;

  async function attempt(messages: ChatMessage[], options: ChatJsonOptions): Promise<string> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const body = {
      model: config.model,
      messages,
      max_tokens: options.maxTokens,
      temperature: options.temperature ?? 0,
      stream: false,
      ...(config.jsonMode === false ? {} : { response_format: { type: 'json_object' } }),
    };
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new LlmError('http', `LLM endpoint answered HTTP ${response.status}`, response.status);
      }
      return await readCapped(response, maxBytes);
    } catch (e) {
      if (e instanceof LlmError) throw e;
      if (options.signal?.aborted) throw new LlmError('cancelled', 'LLM call cancelled');
      if (timeout.aborted) throw new LlmError('timeout', `LLM timeout after ${options.timeoutMs} ms`);
      throw new LlmError('network', `LLM endpoint unreachable: ${(e as Error).message}`);
    }
  }

  async function attemptWithRetries(messages: ChatMessage[], options: ChatJsonOptions): Promise<string> {
    for (let n = 0; ; n++) {
      try {
        return await attempt(messages, options);
      } catch (e) {
        const error = e as LlmError;
        if (!error.retryable || n >= options.maxRetries) throw error;
        await pause(retryDelayMs * 2 ** n, options.signal);
      }
    }
  }

  return {
    model: config.model,
    async chatJson(messages, schema, options) {
      if (!config.model) throw new LlmError('config', 'llm.model is not set in settings.yaml');
      return parseReply(await attemptWithRetries(messages, options), schema);
    },
  };
}
