"""Adapters for the device's parts (camera, buttons, display, USB storage), each a small
interface with a real implementation and a fake for tests."""
