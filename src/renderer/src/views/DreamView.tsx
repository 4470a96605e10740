import { NotAvailable } from '../components/States';
import type { Route } from '../router';

export function DreamView(_props: { route?: Route }) {
  return <NotAvailable feature="Dream" />;
}
