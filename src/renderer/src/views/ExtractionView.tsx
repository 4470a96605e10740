import { NotAvailable } from '../components/States';
import type { Route } from '../router';

export function ExtractionView(_props: { route?: Route }) {
  return <NotAvailable feature="Extraction" />;
}
