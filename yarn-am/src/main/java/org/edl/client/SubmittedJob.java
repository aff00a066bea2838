package org.edl.client;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.edl.job.JobSecret;
import org.edl.job.JobSpec;

/**
 * A job the resource manager accepted.
 *
 * @param spec       as written to the staging directory (paths qualified, output filled in)
 * @param secret     the job's secret; the submitting client uses it to talk to the AM
 * @param stagingDir fully qualified staging directory
 */
public record SubmittedJob(ApplicationId appId, JobSpec spec, JobSecret secret, String stagingDir) {}
