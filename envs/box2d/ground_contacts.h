#pragma once

#include <box2d/box2d.h>

#include <array>

namespace mnrl::envs {

// Gymnasium's contact detector for its Box2D envs, as a Box2D contact listener: whether the
// body that must never touch the ground (the lander, the walker's hull) has touched it, and
// whether each of two feet (the lander's legs, the walker's lower legs) touches it now. A foot's
// flag is set by any of its contacts beginning and cleared by any ending, as Gymnasium's (a
// foot on two terrain edges reads "off" once it leaves either). Everything a lander or walker
// touches is ground: their collision masks leave nothing else.
class GroundContacts final : public b2ContactListener {
 public:
  // The bodies to watch, once they exist (before the first step).
  void watch(const b2Body* body, const std::array<const b2Body*, 2>& feet) {
    body_ = body;
    feet_ = feet;
  }
  bool body_touched() const { return body_touched_; }
  bool foot(int i) const { return foot_contact_[i]; }

  void BeginContact(b2Contact* contact) override { touch(contact, true); }
  void EndContact(b2Contact* contact) override { touch(contact, false); }

 private:
  void touch(b2Contact* contact, bool begins) {
    const b2Body* a = contact->GetFixtureA()->GetBody();
    const b2Body* b = contact->GetFixtureB()->GetBody();
    if (begins && (a == body_ || b == body_)) body_touched_ = true;
    for (int i = 0; i < 2; ++i) {
      if (a == feet_[i] || b == feet_[i]) foot_contact_[i] = begins;
    }
  }

  const b2Body* body_ = nullptr;
  std::array<const b2Body*, 2> feet_{};
  bool body_touched_ = false;
  std::array<bool, 2> foot_contact_{};
};

}  // namespace mnrl::envs
