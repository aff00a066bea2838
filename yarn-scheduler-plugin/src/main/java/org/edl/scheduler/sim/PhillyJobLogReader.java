package org.edl.scheduler.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 */
public final class PhillyJobLogReader {
  private static final Logger LOG = LoggerFactory.getLogger(PhillyJobLogReader.class);
  private final boolean skipBad;

  public PhillyJobLogReader(boolean skipBad) {
    this.skipBad = skipBad;
  }

  public Trace read(Path file) throws IOException {
    String name = file.toString();
    Object doc = new MiniJson(name, Files.readString(file)).parse();
    if (!(doc instanceof List<?> all)) {
      throw new TraceFormatException(name, 1, "document", String.valueOf(doc), "not a JSON array of jobs");
    }
    List<TraceJob> jobs = new ArrayList<>();
    int skipped = 0;
    int notRun = 0;
    for (Object o : all) {
      long line = o instanceof MiniJson.Obj ob ? ob.line() : 0;
      try {
        if (!(o instanceof MiniJson.Obj job)) {
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
          if (!(a instanceof MiniJson.Obj attempt)) {
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
            Object g = m instanceof MiniJson.Obj mo ? mo.fields().get("gpus") : null;
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

  private static String str(Object o) {
    return o == null ? null : o instanceof String s ? s : String.valueOf(o);
  }
}
