// The reference Python library (alexzhang13/rlm), run side by side with us on the same scripted
// tasks and the same mock-llm. Nothing of theirs is in this repository: at bench time their
// `rlm` package is read from a git mirror (RLM_REFERENCE_GIT_DIR, default the workplace's
// mirror) into a temp dir, next to stand-ins for the two packages it imports that this machine
// may lack (no PyPI here): `openai` (chat.completions.create over plain HTTP, sync and truly
// concurrent async, as its client uses them) and `rich` (only its verbose printer uses it; off
// here). The stand-in `openai` imports in ~1 ms where the real SDK takes a few hundred, so the
// reference's whole-process figure is, if anything, flattered.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_REFERENCE_GIT_DIR = '/work/.mirror/alexzhang13+rlm/repo';

export interface ReferenceLib {
  /** `owner/name@commit` of the code that ran. */
  source: string;
  python: string;
  /** Runs one completion in a fresh `python3` process; `wallS` is spawn to exit. */
  run(baseUrl: string, contextFile: string, query: string): { answer: string; calls: number; wallS: number };
  /** The command `run` spawns, for callers that spawn it themselves; `model` defaults to mock-root. Prints `{answer, calls}` as its last line. */
  command(baseUrl: string, contextFile: string, query: string, model?: string): { file: string; args: string[]; env: NodeJS.ProcessEnv };
}

const OPENAI_STANDIN = `# Stand-in for the openai package (RLM Studio's bench, not OpenAI's code): the calls the
# reference library's OpenAIClient makes, over HTTP/1.1 to an OpenAI-compatible endpoint.
import asyncio, http.client, json, threading
from types import SimpleNamespace as _NS
from urllib.parse import urlsplit

ChatCompletion = _NS  # used in an annotation


def _parse(data):
    d = json.loads(data)
    u = d.get("usage") or {}
    usage = _NS(prompt_tokens=u.get("prompt_tokens", 0), completion_tokens=u.get("completion_tokens", 0),
                total_tokens=u.get("total_tokens", 0), model_extra={})
    return _NS(choices=[_NS(message=_NS(content=c["message"]["content"])) for c in d["choices"]], usage=usage)


def _body(model, messages, extra_body=None, **kw):
    b = {"model": model, "messages": messages, **kw}
    if extra_body:
        b.update(extra_body)
    return json.dumps(b).encode()


class _Base:
    def __init__(self, api_key=None, base_url=None, timeout=None, **_):
        self.api_key = api_key or "none"
        self.base_url = base_url
        u = urlsplit(base_url)
        self._host, self._port = u.hostname, u.port or 80
        self._path = u.path.rstrip("/") + "/chat/completions"
        self.chat = _NS(completions=_NS(create=self._create))


class OpenAI(_Base):
    """Sync calls: one keep-alive connection per thread."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self._local = threading.local()

    def _create(self, model, messages, **kw):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self._host, self._port)
        conn.request("POST", self._path, body=_body(model, messages, **kw),
                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + self.api_key})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            raise RuntimeError(f"HTTP {r.status}: {data[:300]!r}")
        return _parse(data)


class AsyncOpenAI(_Base):
    """Async calls: a connection per call, so a gathered batch runs concurrently."""

    async def _create(self, model, messages, **kw):
        body = _body(model, messages, **kw)
        reader, writer = await asyncio.open_connection(self._host, self._port)
        head = (f"POST {self._path} HTTP/1.1\\r\\nHost: {self._host}:{self._port}\\r\\n"
                f"Content-Type: application/json\\r\\nAuthorization: Bearer {self.api_key}\\r\\n"
                f"Content-Length: {len(body)}\\r\\nConnection: close\\r\\n\\r\\n")
        writer.write(head.encode() + body)
        await writer.drain()
        status = int((await reader.readline()).split()[1])
        length, chunked = None, False
        while True:
            line = await reader.readline()
            if line in (b"\\r\\n", b""):
                break
            k, _, v = line.decode().partition(":")
            if k.lower() == "content-length":
                length = int(v)
            elif k.lower() == "transfer-encoding" and "chunked" in v.lower():
                chunked = True
        if chunked:
            data = b""
            while True:
                size = int((await reader.readline()).strip(), 16)
                if size == 0:
                    break
                data += await reader.readexactly(size)
                await reader.readline()
        elif length is not None:
            data = await reader.readexactly(length)
        else:
            data = await reader.read()
        writer.close()
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {data[:300]!r}")
        return _parse(data)
`;

const RICH_STANDIN = `# Stand-in for rich (RLM Studio's bench): the reference imports it for its verbose printer only.
class _Any:
    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        return lambda *a, **k: None


Console = Group = Panel = Rule = Style = Table = Text = _Any
`;

const DOTENV_STANDIN = `def load_dotenv(*a, **k):
    return False
`;

// The same shape as `rlm-studio run --json`: one completion, then the answer and the call count.
const DRIVER = `import json, sys
from rlm import RLM

url, ctx_path, query = sys.argv[1:4]
model = sys.argv[4] if len(sys.argv) > 4 else "mock-root"
with open(ctx_path, encoding="utf-8") as f:
    context = f.read()
rlm = RLM(backend="openai", backend_kwargs={"model_name": model, "base_url": url, "api_key": "bench"},
          environment="local", max_iterations=30)
res = rlm.completion(context, root_prompt=query)
calls = sum(m.total_calls for m in res.usage_summary.model_usage_summaries.values())
print(json.dumps({"answer": res.response, "calls": calls}))
`;

/** The reference library ready to run from `work`, or why it cannot run here. */
export function prepareReference(work: string): ReferenceLib | { unavailable: string } {
  const gitDir = process.env.RLM_REFERENCE_GIT_DIR ?? DEFAULT_REFERENCE_GIT_DIR;
  if (!existsSync(gitDir)) return { unavailable: `no mirror of alexzhang13/rlm at ${gitDir} (set RLM_REFERENCE_GIT_DIR)` };
  const dir = join(work, 'reference-lib');
  const shims = join(work, 'reference-shims');
  mkdirSync(dir, { recursive: true });
  try {
    const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const tar = join(work, 'reference-rlm.tar');
    execFileSync('git', ['--git-dir', gitDir, 'archive', '--output', tar, 'HEAD', 'rlm']);
    execFileSync('tar', ['-xf', tar, '-C', dir]);
    const py = (code: string, path: string[]): string =>
      execFileSync('python3', ['-c', code], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PYTHONPATH: path.join(':') },
      }).trim();
    const version = py('import sys; print(sys.version.split()[0])', []);
    // Stand-ins only where the machine lacks the real package.
    const missing = (m: string): boolean => {
      try {
        py(`import ${m}`, []);
        return false;
      } catch {
        return true;
      }
    };
    const standins: string[] = [];
    mkdirSync(shims, { recursive: true });
    if (missing('openai')) {
      mkdirSync(join(shims, 'openai'), { recursive: true });
      writeFileSync(join(shims, 'openai/__init__.py'), OPENAI_STANDIN);
      standins.push('openai');
    }
    if (missing('rich')) {
      mkdirSync(join(shims, 'rich'), { recursive: true });
      writeFileSync(join(shims, 'rich/__init__.py'), '');
      for (const m of ['console', 'panel', 'rule', 'style', 'table', 'text']) writeFileSync(join(shims, `rich/${m}.py`), RICH_STANDIN);
      standins.push('rich');
    }
    if (missing('dotenv')) {
      mkdirSync(join(shims, 'dotenv'), { recursive: true });
      writeFileSync(join(shims, 'dotenv/__init__.py'), DOTENV_STANDIN);
      standins.push('dotenv');
    }
    const driver = join(work, 'reference-driver.py');
    writeFileSync(driver, DRIVER);
    const env = { ...process.env, PYTHONPATH: [dir, shims].join(':') };
    // Also writes __pycache__, as an installed package has it.
    py('import rlm', [dir, shims]);
    return {
      source: `alexzhang13/rlm@${commit.slice(0, 12)}${standins.length > 0 ? ` with stand-ins for ${standins.join(', ')}` : ''}`,
      python: version,
      run(baseUrl, contextFile, query) {
        const t0 = performance.now();
        const out = execFileSync('python3', [driver, baseUrl, contextFile, query], {
          encoding: 'utf8',
          env,
          timeout: 120_000,
          maxBuffer: 64 * 1024 * 1024,
        });
        const wallS = (performance.now() - t0) / 1000;
        const res = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { answer: string; calls: number };
        return { answer: res.answer, calls: res.calls, wallS };
      },
      command(baseUrl, contextFile, query, model = 'mock-root') {
        return { file: 'python3', args: [driver, baseUrl, contextFile, query, model], env };
      },
    };
  } catch (err) {
    return { unavailable: `the reference library does not run here: ${(err as Error).message.split('\n')[0]}` };
  }
}
