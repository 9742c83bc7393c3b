/* The cause table (cause_table.h) applied: which row names a host stack, a CUDA call or an open
 * range. The only reader of the rows' patterns.
 *
 * Every frame node of the run's call tree is matched against every row once (a bit per row), so a
 * stack is named by a walk of its nodes, and each stack is named once per thread state (cached):
 * a long run's millions of samples share a few thousand stacks. */
#ifndef MMPROF_CAUSE_MATCH_H
#define MMPROF_CAUSE_MATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cause_table.h"
#include "host_activity.h"
#include "model.h"

typedef struct cause_matcher cause_matcher;

/* What a stack says: the row that names it, and the frames an explanation quotes. */
typedef struct {
    int rule;   /* index into cause_rules; -1: no row (a stack with no frames) */
    int user;   /* the user's line (host_user_node), -1 none */
    int via;    /* the frame the user's line called on the way to the innermost one, -1 none */
    int detail; /* DETAIL_PACKAGE: the first module executed inside the matched import frame, -1 */
} cause_hit;

/* A thread's state at a sample, as the matcher reads it. */
typedef enum { THREAD_UNKNOWN = 0, THREAD_RUNNING, THREAD_WAITING } thread_class;
/* 'R' running; 'S', 'D' and the other sleeping or stopped letters waiting; 0 or '-' unknown. */
thread_class thread_class_of(char state);

/* NULL when memory ran out. h may have no frames (a run without host activity). */
cause_matcher *cause_matcher_build(const host_activity *h);
void cause_matcher_free(cause_matcher *cm);

/* The row naming the stack whose innermost node is node, for a thread in state c: of the specific
 * rows, the one matching the outermost frame (of several, the first row); else the first generic
 * row matching any frame. A row wanting a running (waiting) thread matches a waiting (running)
 * one never, an unknown one always. */
cause_hit cause_of_stack(cause_matcher *cm, int node, thread_class c);

/* Whether rule r is specific (TIER_SPECIFIC). */
bool cause_rule_specific(int r);

/* The row naming a CUDA call by its name (with or without its version suffix): the first row
 * whose api patterns match, else the row "other_api". */
int cause_of_api(const char *name);

/* The row naming an open range: kind is "nvtx", "annotation", "phase", "workload", "tool" (a
 * built-in run's own phases), "capture"; -1 when no row's range patterns match "kind:name". */
int cause_of_range(const char *kind, const char *name);

/* The row of an id ("between_kernels"), -1 when none: for the rows the analysis names itself. */
int cause_rule_find(const char *id);

/* A glob list ("a*|b") against s, as the table's patterns are matched (fnmatch, no flags). */
bool cause_glob_list(const char *patterns, const char *s);

#endif
