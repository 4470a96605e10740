/**
 * The rule extractor's child process: the English model (~40 MB, ~0.2 s to load) and the sentence
 * analysis of each window run here, so neither holds up the requests of the process that serves
 * agents, and every byte they used goes back to the system when it exits (a worker thread left
 * ~10-20 MB of freed memory with the allocator; see extraction-process.ts).
 */
import { extractSync, loadEnglish } from '../memory/extraction/rule-extractor';
import type { ExtractionRequest, ExtractionResponse } from './extraction-protocol';

const reply = (res: ExtractionResponse) => process.send?.(res);

process.on('message', (req: ExtractionRequest) => {
  void loadEnglish()
    .then(() => extractSync({ entries: req.entries }))
    .then(
      (candidates): ExtractionResponse => ({ id: req.id, ok: true, candidates }),
      (e: Error): ExtractionResponse => ({ id: req.id, ok: false, error: e?.message ?? String(e) }),
    )
    .then(reply);
});
// The process that started it is gone (closed, or killed): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
