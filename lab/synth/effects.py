"""What happens after the dice are drawn: hands and cup over them, then the camera's own
blur, sensor noise and (in render) JPEG compression."""

from __future__ import annotations


import cv2
import numpy as np

from .base import Base
from .filters import disc_kernel, line_kernel, seeded_noise, wide_blur
from .shapes import occluder_colour, occluder_mask
from .spec import SceneSpec

FACE_OCCLUDER = 251  # face_map value: a hand, arm or cup


def draw_occluders(frame: np.ndarray, face_map: np.ndarray, scene: SceneSpec, base: Base) -> None:
    h, w = frame.shape[:2]
    lamp = base.lamps[0]
    for occ in scene.occluders:
        mask8 = occluder_mask(occ, w, h)
        bx, by, bw, bh = cv2.boundingRect(mask8)
        if bw == 0 or bh == 0:
            continue
        mask = mask8.astype(np.float32) * (1 / 255)
        # the shadow falls away from the key lamp, farther for a higher object
        reach = occ.height / max(lamp.height - occ.height, 1.0)
        dx = (occ.center[0] - lamp.x) * reach + 0.15 * occ.height
        dy = (occ.center[1] - lamp.y) * reach + 0.15 * occ.height
        soft = 2 + occ.height * 0.12
        pad = int(3 * soft) + 2
        sx0, sx1 = max(0, int(bx + min(dx, 0)) - pad), min(w, int(bx + bw + max(dx, 0)) + pad + 1)
        sy0, sy1 = max(0, int(by + min(dy, 0)) - pad), min(h, int(by + bh + max(dy, 0)) + pad + 1)
        shift = np.float32([[1, 0, dx - sx0], [0, 1, dy - sy0]])
        # translate the mask into the shadow's region (source coordinates are the full image)
        shadow = cv2.warpAffine(mask, shift, (sx1 - sx0, sy1 - sy0))
        shadow = wide_blur(shadow, soft)
        frame[sy0:sy1, sx0:sx1] *= (1 - scene.lighting.shadow_strength * 0.8 * shadow)[..., None]

        x0, x1, y0, y1 = bx, bx + bw, by, by + bh
        region = mask[y0:y1, x0:x1]
        colour = occluder_colour(occ, region, (x0, y0), (w, h)) * base.gain[y0:y1, x0:x1]
        alpha = region[..., None]
        frame[y0:y1, x0:x1] = frame[y0:y1, x0:x1] * (1 - alpha) + alpha * colour
        face_map[y0:y1, x0:x1][region >= 0.5] = FACE_OCCLUDER


def camera_effects(frame: np.ndarray, scene: SceneSpec) -> np.ndarray:
    """Blur, sensor noise (seeded by scene.seed) and quantisation to uint8."""
    blur = scene.blur
    if blur.defocus_px > 0.3:
        frame = cv2.filter2D(frame, -1, disc_kernel(blur.defocus_px), borderType=cv2.BORDER_REFLECT)
    if blur.motion_px > 0.5:
        frame = cv2.filter2D(frame, -1, line_kernel(blur.motion_px, blur.motion_deg), borderType=cv2.BORDER_REFLECT)
    if scene.noise_sigma > 0:
        noise = seeded_noise(frame.shape, scene.seed)
        # shot noise grows with the signal: sigma at mid-grey, half of it in the dark
        scale = frame * np.float32(scene.noise_sigma * 0.5 / 128)
        scale += np.float32(scene.noise_sigma * 0.5)
        scale *= noise
        frame += scale
    if blur.sharpen > 0:
        # after the noise, as in a camera's processing: the halos and the noise both get stronger
        soft = cv2.GaussianBlur(frame, (0, 0), 1.2)
        frame = cv2.addWeighted(frame, 1 + blur.sharpen, soft, -blur.sharpen, 0)
    return np.clip(frame, 0, 255).astype(np.uint8)
