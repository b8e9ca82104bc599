#include "adamw.h"

#include <cmath>

namespace attn {

void adamwStep(const std::vector<ParameterRef> &params, const std::vector<ParameterRef> &grads, AdamWState &state,
               const AdamWOptions &o, double lr, const std::vector<bool> &skip)
{
    if (state.m.size() != params.size()) {
        state.m.clear();
        state.v.clear();
        for (const ParameterRef &p : params) {
            state.m.push_back(Eigen::VectorXd::Zero(p.size));
            state.v.push_back(Eigen::VectorXd::Zero(p.size));
        }
    }
    ++state.step;
    const double c1 = 1.0 - std::pow(o.beta1, state.step);
    const double c2 = 1.0 - std::pow(o.beta2, state.step);
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (i < skip.size() && skip[i])
            continue;
        Eigen::Map<Eigen::VectorXd> p(params[i].data, params[i].size);
        const Eigen::Map<const Eigen::VectorXd> g(grads[i].data, grads[i].size);
        Eigen::VectorXd &m = state.m[i], &v = state.v[i];
        if (params[i].matrix && o.weightDecay != 0)
            p *= 1.0 - lr * o.weightDecay;
        m = o.beta1 * m + (1.0 - o.beta1) * g;
        v = o.beta2 * v + (1.0 - o.beta2) * g.cwiseAbs2();
        p.array() -= lr * (m.array() / c1) / ((v.array() / c2).sqrt() + o.epsilon);
    }
}

} // namespace attn
