import { wrapResourceUri } from '@mcppipe/namespace';
import { describe, expect, it } from 'vitest';
import { exposeTool, wrapCallToolResult, wrapPromptResult, wrapReadResult } from './rewrite.js';

const w = (uri: string) => wrapResourceUri('up', uri);

describe('rewrite', () => {
  it('returns results without resource URIs by reference', () => {
    const result = { content: [{ type: 'text', text: 'x' }], structuredContent: { a: 1 } };
    expect(wrapCallToolResult('up', result)).toBe(result);
    const prompt = { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] };
    expect(wrapPromptResult('up', prompt)).toBe(prompt);
  });

  it('wraps resource links and embedded resources, copying only along the path', () => {
    const text = { type: 'text', text: 'x' };
    const result = {
      content: [
        text,
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', text: 'b' } },
      ],
      isError: false,
    };
    const out = wrapCallToolResult('up', result);
    expect(out).toEqual({
      content: [
        text,
        { type: 'resource_link', uri: w('file:///a'), name: 'a' },
        { type: 'resource', resource: { uri: w('file:///b'), text: 'b' } },
      ],
      isError: false,
    });
    expect((out['content'] as unknown[])[0]).toBe(text);
    expect(result.content[1]).toEqual({ type: 'resource_link', uri: 'file:///a', name: 'a' });
  });

  it('wraps resources in prompt messages, single content or arrays', () => {
    const out = wrapPromptResult('up', {
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: 'x://1', text: '1' } } },
        { role: 'user', content: [{ type: 'resource_link', uri: 'x://2', name: '2' }] },
      ],
    });
    expect(JSON.stringify(out)).toContain(w('x://1'));
    expect(JSON.stringify(out)).toContain(w('x://2'));
  });

  it('gives the asked-for content the URI the agent sent and wraps the others', () => {
    const out = wrapReadResult(
      'up',
      {
        contents: [
          { uri: 'x://t/1', text: '1' },
          { uri: 'x://other', text: '2' },
        ],
      },
      {
        original: 'x://t/1',
        exposed: 'mcppipe+t://up/x://t/1',
      },
    );
    expect(out['contents']).toEqual([
      { uri: 'mcppipe+t://up/x://t/1', text: '1' },
      { uri: w('x://other'), text: '2' },
    ]);
  });

  it('exposes a tool under its new name and wraps both forms of the MCP Apps UI reference', () => {
    const tool = {
      name: 't',
      inputSchema: { type: 'object' },
      _meta: { ui: { resourceUri: 'ui://a', csp: 'x' }, 'ui/resourceUri': 'ui://a', other: 1 },
    };
    const out = exposeTool('up', tool, 'up__t');
    expect(out).toEqual({
      name: 'up__t',
      inputSchema: tool.inputSchema,
      _meta: { ui: { resourceUri: w('ui://a'), csp: 'x' }, 'ui/resourceUri': w('ui://a'), other: 1 },
    });
    expect(out['inputSchema']).toBe(tool.inputSchema);
    expect(Object.keys(out)).toEqual(Object.keys(tool));
  });
});
