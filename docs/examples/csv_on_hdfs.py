"""A logistic regression on a CSV file that lives on HDFS, trained as an elastic EDL job.

The job's --data names the file; every worker copies it into its container (with the job's
Hadoop tokens, so this works on a Kerberos cluster too) before it starts the script, and the
script finds the copy in job.data. Each row: the label (0 or 1), then the features.

    hdfs dfs -put points.csv /user/$USER/points.csv
    bin/edl submit --script docs/examples/csv_on_hdfs.py --data /user/$USER/points.csv \\
        --workers 2 --max-workers 4 --steps 2000 --batch-size 128
"""
import csv

import torch
import torch.nn.functional as F

import edl

# edl.init needs the data set's size, so read the file first: its path comes from the worker.
import os
with open(os.environ["EDL_DATA"]) as f:
    rows = [[float(v) for v in row] for row in csv.reader(f) if row]
labels = torch.tensor([int(r[0]) for r in rows])
features = torch.tensor([r[1:] for r in rows])

job = edl.init(dataset_size=len(rows))
torch.manual_seed(job.seed)
model = torch.nn.Linear(features.shape[1], 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
job.attach(model, optimizer)

for step in job.steps():
    x, y = features[step.samples], labels[step.samples]
    optimizer.zero_grad()
    loss_sum = F.cross_entropy(job.model(x), y, reduction="sum")
    step.backward(loss_sum)
    optimizer.step()
    step.done(loss_sum.item())
