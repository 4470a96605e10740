import { NotAvailable } from '../components/States';
import type { Route } from '../router';

export function WikiView(_props: { route?: Route }) {
  return <NotAvailable feature="Wiki" />;
}
