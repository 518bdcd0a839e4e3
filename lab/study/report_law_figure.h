/* report_law_figure.h - law.svg: the best multiplier s* against dk, log-log, a panel per init
 * (report_law.h). */
#ifndef STUDY_REPORT_LAW_FIGURE_H
#define STUDY_REPORT_LAW_FIGURE_H

#include "report_law_groups.h"

/* The group the law's figures show: the experiment's (stage law, its first budget), else the
 * calibration group with the most dk; NULL when no group has 3 dk. */
const LawGroup *law_figure_group(const LawGroup *gs, int ng);
/* Draws dir/law.svg from the experiment's group (stage law, its first budget), else the
 * calibration group with the most dk; nothing (false) when no group has 3 dk. */
bool write_law_svg(const char *dir, const LawGroup *gs, int ng);

#endif
