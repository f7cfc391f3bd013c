import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenLinks, documentationFiles, linkTargets, reachableFrom } from './links';

const ROOT = join(__dirname, '..', '..');
const describeLink = ({ file, line, target }: { file: string; line: number; target: string }) => `${file}:${line}: ${target}`;

describe('the documentation (README.md and docs/)', () => {
  const files = documentationFiles(ROOT);

  it('has docs pages besides the README', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md']));
  });

  it('has no relative link to a file or folder that does not exist', () => {
    expect(brokenLinks(ROOT, files).map(describeLink)).toEqual([]);
  });

  it('reaches every docs page from the README by following links', () => {
    const reached = reachableFrom(ROOT, 'README.md', files);
    expect(files.filter((file) => !reached.has(file))).toEqual([]);
  });

  it('keeps README.md at most 300 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(300);
  });
});

describe('brokenLinks', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'doc-links-'));
    mkdirSync(join(root, 'docs', 'api'), { recursive: true });
    writeFileSync(join(root, 'docs', 'api', 'keys.md'), '# Keys\n');
    writeFileSync(join(root, 'deploy.txt'), 'x');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names each relative link whose target is missing, with its file and line', () => {
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Title',
        'See [keys](docs/api/keys.md#generate), [the folder](docs/api/) and [deploy](<deploy.txt> "title").',
        'Broken: [gone](docs/api/gone.md) and [also gone](docs/missing%20page.md#x).',
        '![picture](docs/picture.png)',
        '[ref]: docs/nowhere.md',
        '[site](https://example.com/x.md), [mail](mailto:a@example.com), [anchor](#title)',
      ].join('\n'),
    );
    writeFileSync(join(root, 'docs', 'api', 'README.md'), '[up](../../README.md) [sibling](keys.md) [wrong level](../keys.md)\n');

    expect(brokenLinks(root, documentationFiles(root))).toEqual([
      { file: 'README.md', line: 3, target: 'docs/api/gone.md' },
      { file: 'README.md', line: 3, target: 'docs/missing%20page.md#x' },
      { file: 'README.md', line: 4, target: 'docs/picture.png' },
      { file: 'README.md', line: 5, target: 'docs/nowhere.md' },
      { file: 'docs/api/README.md', line: 1, target: '../keys.md' },
    ]);
  });

  it('ignores links inside fenced code blocks and code spans', () => {
    const markdown = ['`[a](gone.md)`', '```sh', '[b](gone.md)', '```', '~~~', '[c](gone.md)', '~~~', '[d](here.md)'].join('\n');
    expect(linkTargets(markdown)).toEqual([{ line: 8, target: 'here.md' }]);
  });

  it('tells which pages no link leads to', () => {
    writeFileSync(join(root, 'README.md'), '[api](docs/api/README.md)\n');
    writeFileSync(join(root, 'docs', 'api', 'README.md'), '[up](../../README.md)\n');
    const files = documentationFiles(root);
    const reached = reachableFrom(root, 'README.md', files);
    expect(files.filter((file) => !reached.has(file))).toEqual(['docs/api/keys.md']);
  });
});
