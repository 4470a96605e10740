import { z } from 'zod';
import { contract, commandNames, type CommandName } from '../../shared/contract';
import { httpStatusFor, type ErrorCode } from '../../shared/errors';
import { APP_VERSION } from '../version';
import { API_V1 } from './http-paths';

/**
 * The OpenAPI 3.1 document of the HTTP JSON API, generated from the contract: every command's
 * input and output schema is zod's own JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1),
 * so the document cannot drift from what the door validates.
 */

type Json = Record<string, unknown>;

const ERROR_CODES = Object.keys(httpStatusFor) as ErrorCode[];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A zod schema as a component. zod puts shared and recursive parts (the JSON type of a
 * checkpoint) under `$defs` with `#/$defs/…` references; in an OpenAPI document those would
 * resolve against the document's root, so they become components of their own.
 */
function addSchema(components: Json, name: string, schema: z.ZodType, io: 'input' | 'output'): void {
  const { $schema: _dialect, $defs, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  const rename = (def: string) => `${name}.${def.replace(/^_+/, '')}`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) =>
        k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? [k, `#/components/schemas/${rename(v.slice('#/$defs/'.length))}`]
          : [k, rewrite(v)],
      ),
    );
  };
  components[name] = rewrite(json);
  for (const [def, body] of Object.entries(($defs ?? {}) as Json)) components[rename(def)] = rewrite(body);
}

const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: ERROR_CODES, description: 'What kind of failure; see the README (HTTP API).' },
        message: { type: 'string', description: 'For people: what was wrong, naming the field.' },
        field: { type: 'string', description: 'The input field (or header, path, method) that was refused.' },
      },
    },
  },
};

const errorResponse = (description: string, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('Error') } },
});

const RESPONSES = {
  BadRequest: errorResponse('The input was refused (invalid_input, naming the field); nothing changed.'),
  Unauthorized: errorResponse('No token, or the wrong one (unauthorized).', {
    'WWW-Authenticate': { schema: { type: 'string' } },
  }),
  NotFound: errorResponse('Something the input names does not exist (not_found, naming the field).'),
  MethodNotAllowed: errorResponse('Wrong HTTP method; the Allow header lists the right ones.', {
    Allow: { schema: { type: 'string' } },
  }),
  Conflict: errorResponse('The change conflicts with the current state (conflict).'),
  TooLarge: errorResponse('The body is larger than the door accepts.'),
  Unavailable: errorResponse(
    'busy (a lock another process holds for a moment: retry after Retry-After seconds) or unavailable.',
    { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait before retrying (busy only).' } },
  ),
  Internal: errorResponse('An internal error; details are in the server log, never in the answer.'),
};

const errorRefs = (mutates: boolean) => ({
  '400': { $ref: '#/components/responses/BadRequest' },
  '401': { $ref: '#/components/responses/Unauthorized' },
  '404': { $ref: '#/components/responses/NotFound' },
  '405': { $ref: '#/components/responses/MethodNotAllowed' },
  ...(mutates ? { '409': { $ref: '#/components/responses/Conflict' } } : {}),
  '413': { $ref: '#/components/responses/TooLarge' },
  '500': { $ref: '#/components/responses/Internal' },
  '503': { $ref: '#/components/responses/Unavailable' },
});

function commandPath(name: CommandName, components: Json): Json {
  const spec = contract[name];
  addSchema(components, `${name}.input`, spec.input, 'input');
  addSchema(components, `${name}.output`, spec.output, 'output');
  const ok = {
    description: 'The command output.',
    content: { 'application/json': { schema: ref(`${name}.output`) } },
  };
  const [group] = name.split('.');
  const common = { tags: [group], summary: name, description: spec.description };
  const post = {
    ...common,
    operationId: name,
    requestBody: { required: true, content: { 'application/json': { schema: ref(`${name}.input`) } } },
    responses: { '200': ok, ...errorRefs(spec.mutates) },
  };
  if (spec.mutates) return { post };
  const get = {
    ...common,
    operationId: `${name}.get`,
    description: `${spec.description} (read-only: also answers GET with the input as JSON in the query)`,
    parameters: [
      {
        name: 'input',
        in: 'query',
        required: false,
        description: 'The input as JSON text (URL-encoded); empty = {}.',
        content: { 'application/json': { schema: ref(`${name}.input`) } },
      },
    ],
    responses: { '200': ok, ...errorRefs(false) },
  };
  return { get, post };
}

function fixedPaths(): Json {
  return {
    [`${API_V1}/health`]: {
      get: {
        tags: ['system'],
        operationId: 'health',
        summary: 'Health check',
        description: 'system.doctor: 200 when healthy, 503 when something is broken (same body).',
        responses: {
          '200': { description: 'Healthy.', content: { 'application/json': { schema: ref('system.doctor.output') } } },
          '503': {
            description: 'Something is broken; the body says what.',
            content: { 'application/json': { schema: ref('system.doctor.output') } },
          },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '405': { $ref: '#/components/responses/MethodNotAllowed' },
        },
      },
    },
    [`${API_V1}/events`]: {
      get: {
        tags: ['system'],
        operationId: 'events',
        summary: 'Change notices',
        description:
          'Server-sent events: `ready` once, then a `changed` event ({"at", "sources": ["db"|"wiki"|"settings"]}) whenever the data home changes, whoever wrote it.',
        responses: {
          '200': { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          '401': { $ref: '#/components/responses/Unauthorized' },
          '405': { $ref: '#/components/responses/MethodNotAllowed' },
        },
      },
    },
    [`${API_V1}/openapi.json`]: {
      get: {
        tags: ['system'],
        operationId: 'openapi',
        summary: 'This document',
        security: [],
        responses: {
          '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  };
}

const built = new Map<string, Json>();

/** The whole document for a server at `serverUrl` (http://127.0.0.1:<port>), built once per address. */
export function openApiDocument(serverUrl: string): Json {
  let doc = built.get(serverUrl);
  if (!doc) built.set(serverUrl, (doc = buildDocument(serverUrl)));
  return doc;
}

function buildDocument(serverUrl: string): Json {
  const schemas: Json = { Error: errorBody };
  const paths: Json = {};
  for (const name of commandNames) paths[`${API_V1}/commands/${name}`] = commandPath(name, schemas);
  Object.assign(paths, fixedPaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'EvoFlux Memory HTTP API',
      version: APP_VERSION,
      description:
        'The contract of EvoFlux Memory over loopback HTTP, for the owner (the token holder reaches every session). Every path is also served without the /v1 segment (the same version). Agents connect through MCP at /mcp instead, confined to their context.',
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      responses: RESPONSES,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The token in <home>/http-token (created on the first start, mode 0600).',
        },
      },
    },
  };
}
