/** Loopback only: the door is for this user's processes and this user's browser. */
export const HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7437;
