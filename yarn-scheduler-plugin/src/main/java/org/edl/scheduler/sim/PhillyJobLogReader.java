package org.edl.scheduler.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Philly's raw {@code cluster_job_log}: a JSON array of jobs with {@code submitted_time},
 * {@code user}, {@code vc} and {@code attempts[]} (each with {@code start_time}, {@code end_time}
 * and {@code detail[]} of {@code {ip, gpus[]}}). A job becomes one trace job: user = {@code vc}
 * (the tenant, as the CSV's {@code cluster}), GPUs = the GPUs of its last attempt, duration = the
 * sum of its attempts' run times. Jobs that never started (no attempts) are counted, not errors.
 *
 * <p>Jackson's streaming parser reads the file; the values are kept as maps and lists, each
 * object with the line its opening brace is on, so that an error names the job's or the
 * attempt's line.
 */
public final class PhillyJobLogReader {
  private static final Logger LOG = LoggerFactory.getLogger(PhillyJobLogReader.class);
  private static final JsonFactory JSON = new JsonFactory();

  /** A JSON object of the log and the line its opening brace is on. */
  private record Obj(Map<String, Object> fields, long line) {}
  private final boolean skipBad;

  public PhillyJobLogReader(boolean skipBad) {
    this.skipBad = skipBad;
  }

  public Trace read(Path file) throws IOException {
    String name = file.toString();
    Object doc = parse(name, file);
    if (!(doc instanceof List<?> all)) {
      throw new TraceFormatException(name, 1, "document", String.valueOf(doc), "not a JSON array of jobs");
    }
    List<TraceJob> jobs = new ArrayList<>();
    int skipped = 0;
    int notRun = 0;
    for (Object o : all) {
      long line = o instanceof Obj ob ? ob.line() : 0;
      try {
        if (!(o instanceof Obj job)) {
          throw new TraceFormatException(name, line, "job", String.valueOf(o), "not a JSON object");
        }
        Map<String, Object> f = job.fields();
        long submit = TraceReaders.parseTime(name, line, "submitted_time", str(f.get("submitted_time")));
        String vc = str(f.get("vc"));
        if (vc == null || vc.isBlank()) {
          throw new TraceFormatException(name, line, "vc", String.valueOf(vc), "missing or empty");
        }
        Object att = f.get("attempts");
        if (!(att instanceof List<?> attempts)) {
          throw new TraceFormatException(name, line, "attempts", String.valueOf(att), "not a list");
        }
        if (attempts.isEmpty()) {
          notRun++;
          continue;
        }
        double duration = 0;
        int gpus = 0;
        for (Object a : attempts) {
          if (!(a instanceof Obj attempt)) {
            throw new TraceFormatException(name, line, "attempts", String.valueOf(a), "attempt is not an object");
          }
          long start = TraceReaders.parseTime(name, attempt.line(), "start_time", str(attempt.fields().get("start_time")));
          long end = TraceReaders.parseTime(name, attempt.line(), "end_time", str(attempt.fields().get("end_time")));
          if (end < start) {
            throw new TraceFormatException(name, attempt.line(), "end_time", str(attempt.fields().get("end_time")),
                "before start_time");
          }
          duration += end - start;
          gpus = 0;
          Object detail = attempt.fields().get("detail");
          if (!(detail instanceof List<?> machines)) {
            throw new TraceFormatException(name, attempt.line(), "detail", String.valueOf(detail), "not a list");
          }
          for (Object m : machines) {
            Object g = m instanceof Obj mo ? mo.fields().get("gpus") : null;
            if (!(g instanceof List<?> gl)) {
              throw new TraceFormatException(name, attempt.line(), "gpus", String.valueOf(g), "not a list");
            }
            gpus += gl.size();
          }
        }
        if (gpus == 0) {
          throw new TraceFormatException(name, line, "gpus", "[]", "the last attempt held no GPU");
        }
        jobs.add(new TraceJob(jobs.size(), submit, duration, gpus, vc, null));
      } catch (TraceFormatException e) {
        if (!skipBad) {
          throw e;
        }
        skipped++;
        LOG.debug("skipped: {}", e.getMessage());
      }
    }
    return new Trace(name, PhillyCsvReader.sortBySubmit(jobs), skipped, notRun);
  }

  /** The whole document: objects as {@link Obj}, arrays as lists, numbers as doubles. */
  private static Object parse(String name, Path file) throws IOException {
    try (Reader in = TraceFiles.open(file); JsonParser p = JSON.createParser(in)) {
      try {
        if (p.nextToken() == null) {
          throw new TraceFormatException(name, 1, "document", "", "malformed JSON: unexpected end of file");
        }
        Object doc = value(p);
        if (p.nextToken() != null) {
          throw malformed(name, p, p.getTokenLocation(), "text after the end of the JSON value");
        }
        return doc;
      } catch (JsonProcessingException e) {
        throw malformed(name, p, e.getLocation(), e.getOriginalMessage());
      }
    }
  }

  /** The value that starts at the parser's current token. */
  private static Object value(JsonParser p) throws IOException {
    switch (p.currentToken()) {
      case START_OBJECT: {
        long line = p.getTokenLocation().getLineNr();
        Map<String, Object> fields = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.getCurrentName();
          p.nextToken();
          fields.put(key, value(p));
        }
        return new Obj(fields, line);
      }
      case START_ARRAY: {
        List<Object> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          list.add(value(p));
        }
        return list;
      }
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      default:
        return null;
    }
  }

  /** Where the parser stopped: the line, the field it was in and the text there. */
  private static TraceFormatException malformed(String name, JsonParser p, JsonLocation at, String problem) {
    String field = p.getParsingContext() == null || p.getParsingContext().getCurrentName() == null ? "document"
        : p.getParsingContext().getCurrentName();
    String text;
    try {
      text = p.currentToken() == null ? "" : p.getText();
    } catch (IOException e) {
      text = "";
    }
    return new TraceFormatException(name, at == null ? 0 : at.getLineNr(), field, String.valueOf(text),
        "malformed JSON: " + problem);
  }

  private static String str(Object o) {
    return o == null ? null : o instanceof String s ? s : String.valueOf(o);
  }
}
