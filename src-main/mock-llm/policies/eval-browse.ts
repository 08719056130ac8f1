// Policy for the BrowseComp-Plus-like eval task (src-main/eval/tasks/browsecomp.ts): three
// hops, one per turn, each a search in code (documents naming the entity) then a batch of
// readers over the hits — `rlm_query_batched`, so with recursion on each hit gets a child
// RLM, and at max depth it is a plain sub-LM call. 5 root calls.
import { hasTag, lastTag, type Classified } from '../policy.ts';
import { js, replWith } from './code.ts';
import { submitPy } from './code-py.ts';
import { browseHopPy, browseInspectPy } from './eval-py.ts';

function browseProduct(query: string): string | null {
  return /maker of the product "([^"]+)"/.exec(query)?.[1] ?? null;
}

const HELPERS = String.raw`
const docs = Array.isArray(context) ? context : (() => { try { return JSON.parse(context); } catch (e) { return String(context).split('\n\n'); } })();
const docText = (d) => (typeof d === 'string' ? d : (d.title || '') + '\n' + (d.text || ''));
const docId = (d, i) => (d && typeof d === 'object' && d.docid) || 'doc' + i;
const search = (term) => docs.map((d, i) => [i, docText(d)]).filter(([, t]) => t.includes(term)).slice(0, 8);
const ask = async (question, term) => {
  const hits = search(term);
  print('documents naming', JSON.stringify(term) + ':', hits.map(([i]) => docId(docs[i], i)).join(', ') || 'none');
  const replies = await rlm_query_batched(hits.map(([, t]) => 'TASK: extract-fact\nQUESTION: ' + question + '\nAnswer with the name only, or NONE if the document does not say.\nTEXT:\n' + t));
  const found = replies.map((r) => String(r).trim()).filter((r) => r !== '' && r !== 'NONE' && !r.startsWith('Error'));
  print('readers said:', JSON.stringify(replies.map((r) => String(r).slice(0, 60))));
  return found[0] ?? 'NONE';
};
`;

export function browseTurn(c: Classified): string {
  const python = c.language === 'python';
  if (!hasTag(c, 'browse', 'inspect')) {
    return replWith(
      'Let me look at the corpus first: how many documents, and what a few of them look like.',
      python
        ? browseInspectPy()
        : `${HELPERS}
print('[browse:inspect] docs=' + docs.length);
for (const d of docs.slice(0, 3)) print('sample:', JSON.stringify(docText(d).slice(0, 160)));`,
    );
  }
  const city = lastTag(c, 'browse', 'city');
  const acquirer = lastTag(c, 'browse', 'acquirer');
  const maker = lastTag(c, 'browse', 'maker');
  const dead = [city, acquirer, maker].includes('NONE');
  if (city !== null || dead) {
    const value = city !== null && city !== 'NONE' ? city : 'unknown';
    return replWith(
      `The chain is complete: the answer is ${value}. Submitting it.`,
      python ? submitPy(value) : `answer.content = ${js(value)};\nanswer.ready = true;`,
    );
  }
  if (acquirer !== null) {
    return replWith(
      `${acquirer} acquired the maker. Last hop: where ${acquirer} is headquartered.`,
      python
        ? browseHopPy('city', `In which city is "${acquirer}" headquartered?`, acquirer)
        : `const city = await ask(${js(`In which city is "${acquirer}" headquartered?`)}, ${js(acquirer)});\nprint('[browse:city]', city);`,
    );
  }
  if (maker !== null) {
    return replWith(
      `The product is made by ${maker}. Next hop: who acquired ${maker}.`,
      python
        ? browseHopPy('acquirer', `Which company acquired "${maker}"?`, maker)
        : `const acquirer = await ask(${js(`Which company acquired "${maker}"?`)}, ${js(maker)});\nprint('[browse:acquirer]', acquirer);`,
    );
  }
  const product = browseProduct(c.query ?? '') ?? '';
  return replWith(
    `This needs three facts from different documents. First hop: which company manufactures "${product}". I will search the documents that name it and have a reader extract the maker from each.`,
    python
      ? browseHopPy('maker', `Which company manufactures "${product}"?`, product)
      : `const maker = await ask(${js(`Which company manufactures "${product}"?`)}, ${js(product)});\nprint('[browse:maker]', maker);`,
  );
}
