/* The API call that launched (or made) a GPU record, found by its process and correlation id:
 * where a runtime call and the driver call it made share an id, the runtime one (the user's
 * launch). Built once per analysis over every API call of the run; looked up once per kernel,
 * copy, memset and sync. */
#ifndef MMPROF_LAUNCH_INDEX_H
#define MMPROF_LAUNCH_INDEX_H

#include <stdint.h>

#include "model.h"

typedef struct launch_index launch_index;

/* NULL when memory ran out. */
launch_index *launch_index_build(const event_list *s);
/* The call of (pid, correlation), NULL where none (or correlation 0: none recorded). Of several
 * calls of one id and kind, the first in s. */
const api_event *launch_of(const launch_index *x, uint32_t pid, uint32_t correlation);
void launch_index_free(launch_index *x);

#endif
