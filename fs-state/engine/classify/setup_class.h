/* The class of what set-up adapted to on a target: one per fs, root attribute and what the fs did ("setup kept root mode kept"). */
#ifndef METIS_SETUP_CLASS_H
#define METIS_SETUP_CLASS_H

#include "engine/classify/classes.h"
#include "engine/step/setup_notes.h"

/* c: the class of note n (kinds DIFF_STATE | DIFF_SETUP, the operation "initial"), signed
 * "setup FS root ATTR kept|refused ERRNO|not counted", its hint the lacks word that declares it. */
void classes_setup(const struct metis_config *cfg, const struct setup_note *n, struct dclass *c);

#endif
