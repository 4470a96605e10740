import './zod-csp';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { api } from './api/client';
import { createQueryClient } from './queries/client';
import { applyTheme } from './theme';
import './styles.css';

// Choose the transport (and take the HTTP token out of the address bar) before anything renders.
api();
// The stored light/dark choice applies before the first paint (no inline script may do it).
applyTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={createQueryClient()}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
