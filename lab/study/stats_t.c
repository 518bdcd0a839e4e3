/* stats_t.c - see stats_t.h. */
#include "stats_t.h"

#include "stats_power.h" /* STATS_POWER */

#include <math.h>

#define SQRT2 1.4142135623730951
#define PI 3.141592653589793
#define CHI_STEPS 4000 /* Simpson intervals over the chi distribution (even) */

/* I_x(a, b), the regularized incomplete beta function, from its continued fraction
 *   I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) * 1 / (1 + d1 / (1 + d2 / (1 + ...))),
 *   d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)),  d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)),
 * evaluated by the modified Lentz method; it converges fast for x < (a + 1) / (a + b + 2), and
 * I_x(a, b) = 1 - I_{1-x}(b, a) covers the rest. */
static double beta_fraction(double x, double a, double b)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double f = d;
    for (int m = 1; m <= 1000; m++) {
        double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + even * d;
        c = 1 + even / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        f *= d * c;
        double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 + odd * d;
        c = 1 + odd / c;
        if (fabs(d) < tiny) d = tiny;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double step = d * c;
        f *= step;
        if (fabs(step - 1) < 1e-15) break;
    }
    return f;
}

static double beta_regularized(double x, double a, double b)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(x, a, b) / a;
    return 1 - front * beta_fraction(1 - x, b, a) / b;
}

double stats_t_cdf(double t, double df)
{
    if (!(df > 0) || isnan(t)) return NAN;
    if (isinf(t)) return t > 0 ? 1 : 0;
    /* P(|T| >= |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
    double tail = 0.5 * beta_regularized(df / (df + t * t), df / 2, 0.5);
    return t >= 0 ? 1 - tail : tail;
}

double stats_t_p2(double t, double df)
{
    if (!(df > 0) || isnan(t)) return NAN;
    return beta_regularized(df / (df + t * t), df / 2, 0.5);
}

double stats_t_quantile(double q, double df)
{
    if (!(q > 0 && q < 1) || !(df > 0)) return NAN;
    double lo = -1e6, hi = 1e6;
    while (hi - lo > 1e-10 * (1 + fabs(lo))) {
        double mid = 0.5 * (lo + hi);
        if (stats_t_cdf(mid, df) < q) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The density of U = sqrt(V / df), V ~ chi^2(df): with u = sqrt(v), f(u) = u^(df-1) e^(-u^2/2) /
 * (2^(df/2 - 1) Gamma(df/2)) is chi's; U = u / sqrt(df) scales it. Its log at u (u > 0). */
static double chi_log_density(double u, double df)
{
    return (df - 1) * log(u) - u * u / 2 - (df / 2 - 1) * log(2.0) - lgamma(df / 2);
}

/* P(|T'| > c), T' noncentral t(df, delta): the integral over u of
 * [Q(c u / sqrt(df) - delta) + Phi(-c u / sqrt(df) - delta)] chi(u), by Simpson's rule on
 * [0, sqrt(df) + 12] (beyond it the chi density is below e^-70). */
static double noncentral_two_sided(double c, double df, double delta)
{
    double top = sqrt(df) + 12, h = top / CHI_STEPS, sum = 0;
    for (int i = 0; i <= CHI_STEPS; i++) {
        double u = i * h, w = i == 0 || i == CHI_STEPS ? 1 : (i % 2 ? 4 : 2);
        double x = c * u / sqrt(df);
        double reject = 0.5 * erfc((x - delta) / SQRT2) + 0.5 * erfc((x + delta) / SQRT2);
        /* chi(0) is 0 for df > 1, sqrt(2/pi) for df = 1 (and unbounded below 1) */
        double density = u > 0 ? exp(chi_log_density(u, df)) : (df == 1 ? sqrt(2 / PI) : 0);
        sum += w * reject * density;
    }
    return sum * h / 3;
}

double stats_t_power(double shift, int n, double alpha)
{
    if (n < 2 || !(alpha > 0 && alpha < 1) || isnan(shift)) return NAN;
    double df = n - 1;
    double c = stats_t_quantile(1 - alpha / 2, df);
    return noncentral_two_sided(c, df, fabs(shift) * sqrt((double)n));
}

double stats_mdd_t(double sd, int n, double alpha)
{
    if (n < 2 || !(sd >= 0) || !(alpha > 0 && alpha < 1)) return NAN;
    double lo = 0, hi = 1;
    while (stats_t_power(hi, n, alpha) < STATS_POWER) {
        hi *= 2;
        if (hi > 1e6) return NAN;
    }
    while (hi - lo > 1e-6) {
        double mid = 0.5 * (lo + hi);
        if (stats_t_power(mid, n, alpha) < STATS_POWER) lo = mid;
        else hi = mid;
    }
    return sd * hi;
}

int stats_t_seeds(double delta, double sd, double alpha, int n_min, int n_max)
{
    if (!(sd > 0) || !(delta > 0)) return -1;
    for (int n = n_min < 2 ? 2 : n_min; n <= n_max; n++)
        if (stats_t_power(delta / sd, n, alpha) >= STATS_POWER) return n;
    return -1;
}
