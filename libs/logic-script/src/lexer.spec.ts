import { DiagnosticBag } from './diagnostics';
import { tokenize } from './lexer';

function kinds(source: string): string[] {
  return tokenize(source, new DiagnosticBag()).map((t) =>
    t.kind === 'semi' ? (t.auto ? '⏎' : ';') : t.kind === 'op' || t.kind === 'keyword' ? t.text : t.kind,
  );
}

describe('tokenize', () => {
  it('inserts a semicolon after a line ending in a name, literal, return or closing bracket', () => {
    expect(kinds('x := y\nreturn\nf(a)\n}\n"s"\n5\n')).toEqual([
      'ident',
      ':=',
      'ident',
      '⏎',
      'return',
      '⏎',
      'ident',
      '(',
      'ident',
      ')',
      '⏎',
      '}',
      '⏎',
      'string',
      '⏎',
      'int',
      '⏎',
      'eof',
    ]);
  });

  it('inserts none after an operator, an opening bracket or a comma', () => {
    expect(kinds('a &&\nb ||\nf(\nc,\n)')).toEqual(['ident', '&&', 'ident', '||', 'ident', '(', 'ident', ',', ')', '⏎', 'eof']);
  });

  it('treats a comment spanning lines as a newline, and a line comment as nothing', () => {
    expect(kinds('a /* x\n y */ b // c\nd')).toEqual(['ident', '⏎', 'ident', '⏎', 'ident', '⏎', 'eof']);
    expect(kinds('a /* one line */ b')).toEqual(['ident', 'ident', '⏎', 'eof']);
  });

  it('inserts a final semicolon at the end of the input', () => {
    expect(kinds('return "a"')).toEqual(['return', 'string', '⏎', 'eof']);
  });

  it('reads the longest operator', () => {
    expect(kinds('a<=b<<=c...d&^e:=f')).toEqual(['ident', '<=', 'ident', '<<=', 'ident', '...', 'ident', '&^', 'ident', ':=', 'ident', '⏎', 'eof']);
  });

  it('tells keywords from names', () => {
    expect(kinds('if iff switch switcher func funcs')).toEqual(['if', 'ident', 'switch', 'ident', 'func', 'ident', '⏎', 'eof']);
  });

  it('decodes interpreted strings, byte escapes as UTF-8', () => {
    const [token] = tokenize(String.raw`"a\tb\\\"\x41\u00e9\U0001F600\303\251\a\v"`, new DiagnosticBag());
    expect(token.text).toBe('a\tb\\"Aé😀é\x07\v');
  });

  it('keeps raw strings verbatim except carriage returns, across lines', () => {
    const bag = new DiagnosticBag();
    const tokens = tokenize('`a\\n\r\nb` x', bag);
    expect(tokens[0].text).toBe('a\\n\nb');
    expect(tokens[1]).toMatchObject({ kind: 'ident', line: 2, column: 4 });
  });

  it('gives 1-based lines and columns, counting a tab as one column', () => {
    const tokens = tokenize('a\n\tbb  "c"', new DiagnosticBag());
    expect(tokens.map((t) => [t.kind, t.line, t.column])).toEqual([
      ['ident', 1, 1],
      ['semi', 1, 2],
      ['ident', 2, 2],
      ['string', 2, 6],
      ['semi', 2, 9],
      ['eof', 2, 9],
    ]);
  });

  it('reads integers, with Go digit separators', () => {
    const tokens = tokenize('0 7 2359 1_000', new DiagnosticBag());
    expect(tokens.filter((t) => t.kind === 'int').map((t) => t.value)).toEqual([0, 7, 2359, 1000]);
  });

  it('marks broken literals as bad tokens so no rule is checked on their value', () => {
    const bag = new DiagnosticBag();
    expect(kinds('"a\\q" 0900 1.5 \'x\'')).toEqual(['bad', 'bad', 'bad', 'bad', '⏎', 'eof']);
    tokenize('"a\\q" 0900 1.5 \'x\'', bag);
    expect(bag.errors.map((e) => e.code)).toEqual(['INVALID_ESCAPE', 'UNSUPPORTED_NUMBER', 'UNSUPPORTED_NUMBER', 'UNSUPPORTED_RUNE_LITERAL']);
  });

  it('ignores a leading byte-order mark', () => {
    expect(kinds('\ufeffx')).toEqual(['ident', '⏎', 'eof']);
  });

  it('accepts Unicode letters in names', () => {
    expect(
      tokenize('größe_2 日本', new DiagnosticBag())
        .slice(0, 2)
        .map((t) => t.text),
    ).toEqual(['größe_2', '日本']);
  });
});
