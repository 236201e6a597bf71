"""The words of ``argbench evaluate --help``: what it reads, how records become inputs, what it
prints and writes, and when it exits 1 or 2 (kept apart from the command's code)."""

DESCRIPTION = """\
Command line: run an argbench metric and print its scalar outputs and its signature.

Three ways in:
  FILE                 records holding both predictions and references: a JSON file (a list
                       of records, or an object keyed by id), or a JSONL file (one per line);
  --dataset D          the records of a corpus split (e.g. cam_answers' own answers);
  FILE --dataset D     your system's predictions (JSON, JSONL, or a CQs-Gen shared-task
                       file), joined to the split by the corpus's own id -- intervention_id
                       (cqs_gen), pair_id (claimdiff), question_id [+ answer_index]
                       (cam_answers); references, labels and contexts come from the split.
                       Split ids without a prediction, unknown ids and duplicates are errors
                       (--allow-missing scores what is there and says how many are missing).
D is an argbench dataset name, a folder written by argbench build, or a Hub dataset id.

A record is an object; for a metric with one input (annotator_agreement, cr_diversity) it may
also be the bare value (a list of ratings, a string). Default record fields per compute()
input:

{columns}

Change them with --column INPUT=FIELD; FIELD may be "a.b" for field b of every element of list
a (e.g. predictions=cqs.cq). contexts and intervention_ids are used when the first record has
the field. When a metric expects one string per example and the field holds a list (e.g. the
CAM files' gpt_answers), each element is an example and the record's other fields are
repeated (not with --dataset predictions: one prediction per item). CAM argument lists in a
file whose arguments all carry the authors' "N. " prefixes numbered 1, 2, ...
(silver_112x3.json) are stripped of them, as the metrics expect. argument_relevance needs the
human labels: per record one integer per argument (0-3, -1 or null for unknown), e.g.
cam_answers' argument_relevance column.

claim_relation scores one ClaimDiff relation: a score per record (higher = more likely label 1)
and the gold label (the claimdiff column); --threshold sets the decision threshold, --dev FILE
(records of the same shape, e.g. from loaders.claimdiff.issue_split) chooses it by F1, and
--option hard_labels=true takes 0/1 decisions instead of scores. --plot FILE draws its
precision-recall curve (needs matplotlib).

cq_reference_match also reads shared-task files: SUBMISSION.json with --references
validation.json (or --references-dataset: the cqs_gen interventions split).

Output: the signature (everything that can change the number: cite it with the figure) and a
name/value table of the scalar outputs (nested counts as a.b), each with its meaning from the
metric card's Outputs table (the last line says where the card is); --json prints the whole
result, per-item lists included, as JSON (NaN, i.e. undefined, as null). --ci adds a
percentile bootstrap interval for each per-item mean. --out FILE writes a results file for
argbench compare (values, per-item scores, signature, dataset name/version/content hash,
argbench version, command line, time). Exit status 2 for bad usage or bad input (the message
names the record and field), 1 for a run that failed or is incomplete: an LLM endpoint that
stopped answering, or judgments that failed. With --allow-incomplete a run with failed
judgments prints its result, marked complete=False and scored over what was judged, and
exits 0.
"""

EPILOG = """\
examples:
  ARGBENCH_SOURCES=/path/to/mirror argbench evaluate argument_relevance \\
      --dataset cam_answers --config silver_subset
  argbench evaluate argument_relevance my_answers.jsonl --dataset cam_answers --config gold \\
      --out my_answers.results.json
  argbench evaluate cq_reference_match output.json --dataset cqs_gen --split validation \\
      --model sentence-transformers/all-MiniLM-L6-v2 --allow-missing --ci --out results.json
  argbench evaluate argument_overlap silver_112x3.json --column predictions=gpt_answers
  argbench evaluate cq_reference_match output.json --references validation.json --threshold 0.6
  argbench evaluate cr_diversity output.json --column predictions=cqs.cq --json
  argbench evaluate annotator_agreement ratings.json --option categories=[0,1,2,3]
  argbench evaluate claim_relation test.jsonl --dev dev.jsonl --plot pr.png
"""
