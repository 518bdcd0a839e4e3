/* report_law_figure.h - law.svg: the best multiplier s* against dk, log-log, a panel per init
 * (report_law.h). */
#ifndef STUDY_REPORT_LAW_FIGURE_H
#define STUDY_REPORT_LAW_FIGURE_H

#include "report_law_groups.h"

/* Draws dir/law.svg from the experiment's group (stage law, its first budget), else the
 * calibration group with the most dk; nothing (false) when no group has 3 dk. */
bool write_law_svg(const char *dir, const LawGroup *gs, int ng);

#endif
