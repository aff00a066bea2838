package org.edl.scheduler.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for Philly's cluster_job_log: objects, arrays, strings, numbers, true, false,
 * null. Kept here rather than adding a JSON library to the policy core's module; it records the
 * line each object starts on so that errors can name it.
 */
final class MiniJson {
  /** A parsed object and the line its opening brace was on. */
  record Obj(Map<String, Object> fields, long line) {}

  private final String file;
  private final String s;
  private int pos;
  private long line = 1;

  MiniJson(String file, String text) {
    this.file = file;
    this.s = text;
  }

  Object parse() {
    Object v = value("document");
    skipSpace();
    if (pos < s.length()) {
      throw error("document", "text after the end of the JSON value");
    }
    return v;
  }

  long line() {
    return line;
  }

  private Object value(String field) {
    skipSpace();
    if (pos >= s.length()) {
      throw error(field, "unexpected end of file");
    }
    char c = s.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array(field);
      case '"':
        return string(field);
      case 't':
        return literal(field, "true", Boolean.TRUE);
      case 'f':
        return literal(field, "false", Boolean.FALSE);
      case 'n':
        return literal(field, "null", null);
      default:
        return number(field);
    }
  }

  private Obj object() {
    long start = line;
    pos++;
    Map<String, Object> m = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      pos++;
      return new Obj(m, start);
    }
    while (true) {
      skipSpace();
      String key = string("key");
      skipSpace();
      expect(key, ':');
      m.put(key, value(key));
      skipSpace();
      char c = next(key);
      if (c == '}') {
        return new Obj(m, start);
      }
      if (c != ',') {
        throw error(key, "expected ',' or '}' but found '" + c + "'");
      }
    }
  }

  private List<Object> array(String field) {
    pos++;
    List<Object> l = new ArrayList<>();
    skipSpace();
    if (peek() == ']') {
      pos++;
      return l;
    }
    while (true) {
      l.add(value(field));
      skipSpace();
      char c = next(field);
      if (c == ']') {
        return l;
      }
      if (c != ',') {
        throw error(field, "expected ',' or ']' but found '" + c + "'");
      }
    }
  }

  private String string(String field) {
    if (peek() != '"') {
      throw error(field, "expected a string");
    }
    pos++;
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = next(field);
      if (c == '"') {
        return b.toString();
      }
      if (c == '\n') {
        line++;
      }
      if (c == '\\') {
        char e = next(field);
        switch (e) {
          case 'n': b.append('\n'); break;
          case 't': b.append('\t'); break;
          case 'r': b.append('\r'); break;
          case 'b': b.append('\b'); break;
          case 'f': b.append('\f'); break;
          case 'u':
            if (pos + 4 > s.length()) {
              throw error(field, "bad \\u escape");
            }
            b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            pos += 4;
            break;
          default: b.append(e);
        }
      } else {
        b.append(c);
      }
    }
  }

  private Object literal(String field, String word, Object v) {
    if (!s.startsWith(word, pos)) {
      throw error(field, "unexpected text");
    }
    pos += word.length();
    return v;
  }

  private Double number(String field) {
    int start = pos;
    while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) {
      pos++;
    }
    try {
      return Double.valueOf(s.substring(start, pos));
    } catch (NumberFormatException e) {
      pos = start;
      throw error(field, "unexpected text");
    }
  }

  private void skipSpace() {
    while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) {
      if (s.charAt(pos) == '\n') {
        line++;
      }
      pos++;
    }
  }

  private char peek() {
    return pos < s.length() ? s.charAt(pos) : '\0';
  }

  private char next(String field) {
    if (pos >= s.length()) {
      throw error(field, "unexpected end of file");
    }
    return s.charAt(pos++);
  }

  private void expect(String field, char c) {
    if (next(field) != c) {
      throw error(field, "expected '" + c + "'");
    }
  }

  private TraceFormatException error(String field, String problem) {
    int end = Math.min(s.length(), pos + 20);
    return new TraceFormatException(file, line, field, s.substring(Math.min(pos, end), end), "malformed JSON: " + problem);
  }
}
