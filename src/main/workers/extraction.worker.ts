/**
 * The rule extractor's worker: the English model (~40 MB, ~0.2 s to load) and the sentence
 * analysis of each window run here, so neither holds up the main thread's requests, and the model's
 * memory goes when the worker stops.
 */
import { parentPort } from 'node:worker_threads';
import { extractSync, loadEnglish } from '../memory/extraction/rule-extractor';
import type { ExtractionRequest, ExtractionResponse } from './extraction-protocol';

parentPort!.on('message', (req: ExtractionRequest) => {
  void loadEnglish()
    .then(() => extractSync({ entries: req.entries }))
    .then(
      (candidates): ExtractionResponse => ({ id: req.id, ok: true, candidates }),
      (e: Error): ExtractionResponse => ({ id: req.id, ok: false, error: e?.message ?? String(e) }),
    )
    .then((res) => parentPort!.postMessage(res));
});
