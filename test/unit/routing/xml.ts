/**
 * A strict little XML reader for the tests of the preview's picture (no XML parser is among the
 * dependencies): it throws on anything not well-formed that the renderer could produce — an
 * unclosed or crossed element, an unquoted or repeated attribute, a bare `&` or `<`, a character
 * XML 1.0 forbids, a second root — and gives back the element tree with decoded text.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own text, without its children's. */
  text: string;
  /** Text and elements in document order. */
  nodes: (XmlElement | string)[];
}

const NAME = /^[A-Za-z_][\w.:-]*/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decode = (raw: string, where: number): string => {
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(raw)) throw new Error(`forbidden character near ${where}`);
  return raw.replace(/&([^;]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new Error(`bare & near ${where}`);
    if (body in ENTITIES) return ENTITIES[body]!;
    const code = /^#x[0-9a-fA-F]+$/.test(body) ? parseInt(body.slice(2), 16) : /^#[0-9]+$/.test(body) ? Number(body.slice(1)) : NaN;
    if (Number.isNaN(code)) throw new Error(`unknown entity &${body}; near ${where}`);
    return String.fromCodePoint(code);
  });
};

export const parseXml = (source: string): XmlElement => {
  let i = source.startsWith('<?xml') ? source.indexOf('?>') + 2 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (i < source.length) {
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i);
      if (end < 0) throw new Error('unclosed comment');
      i = end + 3;
    } else if (source.startsWith('</', i)) {
      const end = source.indexOf('>', i);
      const name = source.slice(i + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`</${name}> closes <${open?.name}> at ${i}`);
      i = end + 1;
    } else if (source[i] === '<') {
      const name = NAME.exec(source.slice(i + 1))?.[0];
      if (!name) throw new Error(`bad element name at ${i}`);
      if (root && stack.length === 0) throw new Error(`second root <${name}> at ${i}`);
      const element: XmlElement = { name, attributes: {}, children: [], text: '', nodes: [] };
      let j = i + 1 + name.length;
      for (;;) {
        const rest = source.slice(j);
        const space = /^\s*/.exec(rest)![0].length;
        j += space;
        if (source.startsWith('/>', j) || source[j] === '>') break;
        if (space === 0) throw new Error(`attributes run together at ${j}`);
        const attribute = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"<]*)"|'([^'<]*)')/.exec(source.slice(j));
        if (!attribute) throw new Error(`bad attribute at ${j}: ${source.slice(j, j + 30)}`);
        if (attribute[1]! in element.attributes) throw new Error(`repeated attribute ${attribute[1]} at ${j}`);
        element.attributes[attribute[1]!] = decode(attribute[3] ?? attribute[4] ?? '', j);
        j += attribute[0].length;
      }
      if (stack.length > 0) {
        stack[stack.length - 1]!.children.push(element);
        stack[stack.length - 1]!.nodes.push(element);
      } else root = element;
      if (source.startsWith('/>', j)) i = j + 2;
      else {
        stack.push(element);
        i = j + 1;
      }
    } else {
      const end = source.indexOf('<', i);
      const raw = source.slice(i, end < 0 ? source.length : end);
      if (raw.includes('>') && raw.includes(']]>')) throw new Error(`]]> in text at ${i}`);
      const text = decode(raw, i);
      if (stack.length > 0) {
        stack[stack.length - 1]!.text += text;
        stack[stack.length - 1]!.nodes.push(text);
      }
      else if (text.trim() !== '') throw new Error(`text outside the root at ${i}`);
      i = end < 0 ? source.length : end;
    }
  }
  if (stack.length > 0) throw new Error(`<${stack[stack.length - 1]!.name}> is not closed`);
  if (!root) throw new Error('no root element');
  return root;
};

/** Every element under (and including) `element`, depth first. */
export const allElements = (element: XmlElement): XmlElement[] => [element, ...element.children.flatMap(allElements)];

/** The text of an element and of everything inside it. */
export const textOf = (element: XmlElement): string => element.nodes.map((n) => (typeof n === 'string' ? n : textOf(n))).join('');

export const byClass = (element: XmlElement, name: string): XmlElement[] => allElements(element).filter((e) => (e.attributes.class ?? '').split(' ').includes(name));
