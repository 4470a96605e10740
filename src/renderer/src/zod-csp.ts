import { z } from 'zod';

// The window's CSP has no 'unsafe-eval': zod must not even probe `new Function` (a probe is
// reported as a CSP violation although zod catches the error), so its parsers run jitless.
z.config({ jitless: true });
