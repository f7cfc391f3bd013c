import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** One relative link of a markdown file whose target does not exist. */
export interface BrokenLink {
  /** The file holding the link, relative to the root. */
  file: string;
  line: number;
  target: string;
}

/** The markdown files of the documentation: README.md and every `*.md` under docs/, relative to the root. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path.split(sep).join('/'));
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

// An inline link or image `[text](target "title")`, the text allowing one level of nested brackets
// (`[![badge](img)](url)`, `[a [b] c](url)`); the target in `<...>` or without spaces.
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
// A link reference definition `[label]: target`.
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The link targets of a markdown text with their line numbers, leaving out fenced code blocks and code spans. */
export function linkTargets(markdown: string): Array<{ line: number; target: string }> {
  const targets: Array<{ line: number; target: string }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      fence = marker;
      return;
    }
    const prose = text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
    const definition = REFERENCE_DEFINITION.exec(prose);
    if (definition) targets.push({ line: index + 1, target: definition[1] });
    for (const match of prose.matchAll(INLINE_LINK)) targets.push({ line: index + 1, target: match[1] });
  });
  return targets.map(({ line, target }) => ({ line, target: target.replace(/^<(.*)>$/, '$1') }));
}

/** Whether a target is checked here: relative to the file (not a URL with a scheme, not `//host`, not only `#anchor`). */
function isRelativeFileLink(target: string): boolean {
  return target !== '' && !SCHEME.test(target) && !target.startsWith('//') && !target.startsWith('#');
}

/** The file (or folder) a relative link names, or undefined when it leaves the root. */
function resolveTarget(root: string, file: string, target: string): string | undefined {
  const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
  const absolute = path.startsWith('/') ? join(root, path) : resolve(root, dirname(file), path);
  return relative(root, absolute).startsWith('..') ? undefined : absolute;
}

/** Every relative link of the given files (relative to `root`) whose file or folder does not exist. */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    for (const { line, target } of linkTargets(readFileSync(join(root, file), 'utf8'))) {
      if (!isRelativeFileLink(target)) continue;
      const path = resolveTarget(root, file, target);
      if (path === undefined || !existsSync(path)) broken.push({ file, line, target });
    }
  }
  return broken;
}

/** The markdown files reachable from `start` by following relative links between the given files. */
export function reachableFrom(root: string, start: string, files: readonly string[]): Set<string> {
  const known = new Set(files);
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { target } of linkTargets(readFileSync(join(root, file), 'utf8'))) {
      if (!isRelativeFileLink(target)) continue;
      const path = resolveTarget(root, file, target);
      if (path === undefined) continue;
      const linked = relative(root, path).split(sep).join('/');
      if (known.has(linked) && !seen.has(linked)) {
        seen.add(linked);
        queue.push(linked);
      }
    }
  }
  return seen;
}
