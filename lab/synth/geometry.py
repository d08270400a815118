"""Pinhole camera and die poses for the synthetic scenes.

World frame: x right and y down along the tray (plane px, see spec.py), z pointing down
into the tray, so the tray surface is z = 0 and "up" is -z. With this choice the camera
frame of OpenCV (x right, y down, z forward) equals the world frame when the camera looks
straight down, and the tray maps 1:1 onto the image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from .spec import CameraSpec, DieSpec

UP = np.array([0.0, 0.0, -1.0])
COCKED_DEG = 4.0  # a top face tilted more than this is labelled cocked

# The canonical die: outward normal of each value's face, and the face's texture axes
# (u to the right, v down when seen from outside), chosen so u x v = -normal. Opposite faces
# add to 7 and 1, 2, 3 run counter-clockwise around their shared corner.
FACE_NORMALS: dict[int, tuple[float, float, float]] = {
    1: (0, 0, -1), 6: (0, 0, 1), 2: (1, 0, 0), 5: (-1, 0, 0), 3: (0, -1, 0), 4: (0, 1, 0),
}
FACE_AXES: dict[int, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    1: ((1, 0, 0), (0, 1, 0)),
    6: ((1, 0, 0), (0, -1, 0)),
    2: ((0, 0, 1), (0, 1, 0)),
    5: ((0, 1, 0), (0, 0, 1)),
    3: ((0, 0, 1), (1, 0, 0)),
    4: ((1, 0, 0), (0, 0, 1)),
}


def rotation_about(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    x, y, z = axis
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) * c + s * k + (1 - c) * np.outer(axis, axis)


def rotation_bringing(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The shortest rotation taking unit vector a onto unit vector b."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    axis = np.cross(a, b)
    sin = np.linalg.norm(axis)
    cos = float(np.dot(a, b))
    if sin < 1e-9:
        if cos > 0:
            return np.eye(3)
        helper = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        return rotation_about(np.cross(a, helper), math.pi)
    return rotation_about(axis, math.atan2(sin, cos))


@dataclass(frozen=True)
class Camera:
    """A pinhole camera for an image of width x height px, from a CameraSpec."""

    width: int
    height: int
    focal: float
    rotation: np.ndarray  # world -> camera
    position: np.ndarray  # camera centre, world

    @classmethod
    def from_spec(cls, spec: CameraSpec, width: int, height: int) -> "Camera":
        focal = (width / 2) / math.tan(math.radians(spec.fov_deg) / 2)
        tilt = math.radians(spec.tilt_deg)
        yaw = rotation_about(np.array([0.0, 0, 1]), math.radians(spec.yaw_deg))
        pitch = np.array(
            [[1, 0, 0], [0, math.cos(tilt), math.sin(tilt)], [0, -math.sin(tilt), math.cos(tilt)]]
        )
        rotation = pitch @ yaw.T
        look_at = np.array([(width - 1) / 2, (height - 1) / 2, 0.0])
        offset = np.array([0.0, focal * math.sin(tilt), -focal * math.cos(tilt)])
        position = look_at + yaw @ offset
        return cls(width, height, focal, rotation, position)

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, float) - self.position) @ self.rotation.T

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> image points (N, 2)."""
        cam = self.to_camera(points)
        z = np.maximum(cam[:, 2], 1e-6)
        return np.stack(
            [self.focal * cam[:, 0] / z + (self.width - 1) / 2,
             self.focal * cam[:, 1] / z + (self.height - 1) / 2],
            axis=1,
        )

    def depth(self, points: np.ndarray) -> np.ndarray:
        return self.to_camera(points)[:, 2]

    def plane_to_image(self, height: float = 0.0) -> np.ndarray:
        """Homography from (x, y) on the horizontal plane `height` px above the tray to the image."""
        k = np.array([[self.focal, 0, (self.width - 1) / 2], [0, self.focal, (self.height - 1) / 2], [0, 0, 1]])
        r = self.rotation
        t = -r @ self.position + r[:, 2] * (-height)
        return k @ np.column_stack([r[:, 0], r[:, 1], t])

    def image_to_plane(self, height: float = 0.0) -> np.ndarray:
        return np.linalg.inv(self.plane_to_image(height))

    def faces_camera(self, point: np.ndarray, normal: np.ndarray) -> bool:
        return float(np.dot(self.position - point, normal)) > 1e-6


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, float).reshape(-1, 2)
    out = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return out[:, :2] / out[:, 2:3]


@dataclass(frozen=True)
class DiePose:
    """Where a die is: its rotation (die -> world) and the world position of its centre."""

    rotation: np.ndarray
    center: np.ndarray
    size: float

    def corners(self) -> np.ndarray:
        a = self.size / 2
        signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
        return self.center + (signs * a) @ self.rotation.T

    def face_normal(self, value: int) -> np.ndarray:
        return self.rotation @ np.array(FACE_NORMALS[value], float)

    def face_center(self, value: int) -> np.ndarray:
        return self.center + self.face_normal(value) * (self.size / 2)

    def face_quad(self, value: int, grow: float = 0.0) -> np.ndarray:
        """The face's corners in world coordinates, in texture order (top-left, top-right,
        bottom-right, bottom-left as seen from outside); `grow` widens it by that many px."""
        u, v = (self.rotation @ np.array(axis, float) for axis in FACE_AXES[value])
        c = self.face_center(value)
        a = self.size / 2 + grow
        return np.array([c - a * u - a * v, c + a * u - a * v, c + a * u + a * v, c - a * u + a * v])

    def top_value(self) -> int:
        return max(FACE_NORMALS, key=lambda v: float(np.dot(self.face_normal(v), UP)))

    def top_tilt_deg(self) -> float:
        cos = float(np.dot(self.face_normal(self.top_value()), UP))
        return math.degrees(math.acos(max(-1.0, min(1.0, cos))))

    def footprint(self) -> np.ndarray:
        """Convex outline of the die seen from straight above, in plane px (closed, N x 2)."""
        xy = self.corners()[:, :2].astype(np.float32)
        return cv2.convexHull(xy).reshape(-1, 2).astype(float)


def die_pose(die: DieSpec) -> DiePose:
    """The pose of a die from its spec (see DieSpec for the meaning of the fields)."""
    a = die.size / 2
    if die.orientation is not None:
        rotation = np.array(die.orientation, float).reshape(3, 3)
        center = np.array([die.center[0], die.center[1], -a - die.lift])
        return DiePose(rotation, center, die.size)
    spin = rotation_about(np.array([0.0, 0, 1]), math.radians(die.angle))  # clockwise on the image
    rotation = np.array(resting_orientation(die.value, die.angle)).reshape(3, 3)
    center = np.array([die.center[0], die.center[1], -a - die.lift])
    if die.cocked_deg:
        side = spin @ np.array([(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)][die.cocked_side % 4], float)
        pivot = center + np.array([0, 0, a]) - side * a  # the bottom edge opposite the raised side
        axis = np.cross(side, UP)
        theta = math.radians(die.cocked_deg)
        tip = rotation_about(axis, theta)
        # make sure the named side rises (the axis sign convention is easy to get backwards)
        if float(np.dot(tip @ side, UP)) < 0:
            tip = rotation_about(axis, -theta)
        rotation = tip @ rotation
        center = pivot + tip @ (center - pivot)
    return DiePose(rotation, center, die.size)


def resting_orientation(value: int, angle_deg: float = 0.0) -> tuple[float, ...]:
    """DieSpec.orientation of a die lying flat with `value` on top, turned `angle_deg`
    clockwise on the image: a starting point for tumbling dice."""
    spin = rotation_about(np.array([0.0, 0, 1]), math.radians(angle_deg))
    return tuple(float(x) for x in (spin @ rotation_bringing(np.array(FACE_NORMALS[value], float), UP)).ravel())


def turned(orientation: tuple[float, ...], axis: tuple[float, float, float], angle_deg: float) -> tuple[float, ...]:
    """`orientation` turned by `angle_deg` about a world axis (x right, y down the image,
    z into the tray) through the die's centre; e.g. a die rolling towards +x turns about +y."""
    r = rotation_about(np.array(axis, float), math.radians(angle_deg)) @ np.array(orientation, float).reshape(3, 3)
    return tuple(float(x) for x in r.ravel())
